import RecordKitControl
import Foundation
import Synchronization

/// What obs-websocket's start requests record with, since they carry no options: the record
/// directory (`SetRecordDirectory` changes it for this service's lifetime), the replay buffer's
/// length, the stream endpoint and the display and audio server (the service's own).
package final class OBSRecordingSettings: Sendable {
    private let directory: Mutex<String>
    /// Seconds `StartReplayBuffer` keeps.
    package let replaySeconds: Double
    /// The RTMP endpoint `StartStream` broadcasts to (the config file's), or nil: no stream configured.
    package let streamURL: String?
    /// What every recording started here records with besides its output: the config file's
    /// capture keys, hooks, encoding keys and `[uploads]`, and the service's display and audio server.
    package let base: StartArguments

    /// Settings over `base`; `display` and `audioServer`, when given, replace the base's.
    package init(recordDirectory: String, replaySeconds: Double = 60, streamURL: String? = nil, base: StartArguments = StartArguments(),
                 display: String? = nil, audioServer: String? = nil) {
        directory = Mutex(recordDirectory)
        self.replaySeconds = replaySeconds
        self.streamURL = streamURL
        var base = base
        if let display { base.display = display }
        if let audioServer { base.audioServer = audioServer }
        self.base = base
    }

    /// Where `StartRecord` writes (a timestamped name in it).
    package var recordDirectory: String {
        get { directory.withLock { $0 } }
        set { directory.withLock { $0 = newValue } }
    }

    /// Start arguments for one of obs-websocket's outputs: output options only, so that with a
    /// recording running the service adds the output to the same capture (and its encoders).
    package func startArguments(for output: OBSOutputKind) -> StartArguments {
        var a = base
        // The outputs' options as the command line spells them (their extensions declare them).
        switch output {
        case .record:
            a.outputOptions = ["--output", recordDirectory + "/" + Self.timestampedName()]
        case .replayBuffer:
            a.outputOptions = ["--no-file", "--replay-buffer", String(replaySeconds)]
            a.upload = nil  // no recording file; the clips follow `uploadReplays`
        case .stream:
            a.outputOptions = ["--no-file"] + (streamURL.map { ["--rtmp", $0] } ?? [])
            a.upload = nil
        }
        return a
    }

    /// "Recording 2026-11-25 at 21.56.02.mp4", as the file extension names its default.
    static func timestampedName() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd 'at' HH.mm.ss"
        return "Recording \(f.string(from: Date())).mp4"
    }
}

/// obs-websocket's three outputs, as RecordKit maps them onto one recording's handlers.
package enum OBSOutputKind: Sendable, CaseIterable {
    /// The file (handler `file`).
    case record
    /// The replay buffer (handler `replay-buffer`).
    case replayBuffer
    /// The stream (handlers `rtmp`, `rtmp-2`, …).
    case stream

    /// Whether a handler of this name is this output.
    package func matches(handler name: String) -> Bool {
        switch self {
        case .record: return name == "file" || name.hasPrefix("file-")
        case .replayBuffer: return name == "replay-buffer" || name.hasPrefix("replay-buffer-")
        case .stream: return name == "rtmp" || name.hasPrefix("rtmp-")
        }
    }
}
