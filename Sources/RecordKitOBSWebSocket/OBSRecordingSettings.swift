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
    /// The display and audio server recordings use (the service's environment).
    package let display: String?
    package let audioServer: String?
    /// The on-saved hooks and their bound (the config file's `[hooks]`), for recordings started here.
    package let onSaved: [String]
    package let hookTimeout: Double?

    package init(recordDirectory: String, replaySeconds: Double = 60, streamURL: String? = nil,
                 display: String? = ProcessInfo.processInfo.environment["DISPLAY"],
                 audioServer: String? = ProcessInfo.processInfo.environment["PULSE_SERVER"],
                 onSaved: [String] = [], hookTimeout: Double? = nil) {
        directory = Mutex(recordDirectory)
        self.replaySeconds = replaySeconds
        self.streamURL = streamURL
        self.display = display
        self.audioServer = audioServer
        self.onSaved = onSaved
        self.hookTimeout = hookTimeout
    }

    /// Where `StartRecord` writes (a timestamped name in it).
    package var recordDirectory: String {
        get { directory.withLock { $0 } }
        set { directory.withLock { $0 = newValue } }
    }

    /// Start arguments for one of obs-websocket's outputs, started alone (the service runs one
    /// recording; attaching an output to a running one is not built yet).
    package func startArguments(for output: OBSOutputKind) -> StartArguments {
        var a = StartArguments()
        a.display = display
        a.audioServer = audioServer
        a.onSaved = onSaved
        a.hookTimeout = hookTimeout
        // The outputs' options as the command line spells them (their extensions declare them).
        switch output {
        case .record:
            a.outputOptions = ["--output", recordDirectory + "/" + Self.timestampedName()]
        case .replayBuffer:
            a.outputOptions = ["--no-file", "--replay-buffer", String(replaySeconds)]
        case .stream:
            a.outputOptions = ["--no-file"] + (streamURL.map { ["--rtmp", $0] } ?? [])
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
