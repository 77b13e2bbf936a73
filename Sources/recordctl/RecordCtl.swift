import ArgumentParser

/// `recordctl`: record the screen and audio, drive the recording service.
@main
struct RecordCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordctl",
        abstract: "Record the screen and audio to files and broadcast endpoints.",
        discussion: "Exit codes: 0 success, 64 bad arguments, 65 not a movie that can be trimmed (trim), 66 input missing (trim), 69 display/audio server/window unavailable (or the audio server lost while recording: file kept, audio silent from then on), 70 recording failed (or stop could not keep the recording where asked; the message says where it is), 73 output cannot be created, 75 wrong state (nothing recording, already recording), 77 permission denied. One page per verb, with examples: docs/recordctl.md.",
        subcommands: [RecordCommand.self, StartCommand.self, StopCommand.self, DiscardCommand.self, PauseCommand.self,
                      ResumeCommand.self, MarkCommand.self, MicCommand.self, AppAudioCommand.self, CameraCommand.self, SplitCommand.self, SaveReplayCommand.self, StatusCommand.self, EventsCommand.self,
                      ServiceCommand.self, ExtensionsCommand.self, ConfigCommand.self, MonitorsCommand.self, CamerasCommand.self, AudioSourcesCommand.self,
                      TrimCommand.self, PreviewCommand.self, ReviewCommand.self, OBSWebSocketCommand.self,
                      UploadCommand.self, UploadsCommand.self])
}
