import Foundation

/// The control protocol between `recordctl` and `recordd`: one JSON object per line over a
/// Unix stream socket (docs/PROTOCOL.md). Version 1.
package enum ControlProtocol {
    /// The protocol version this build speaks.
    package static let version = 1
    /// The longest request line accepted, in bytes.
    package static let maxLineBytes = 64 * 1024
}

/// The commands of the control protocol (docs/PROTOCOL.md), by their wire names.
package enum ControlCommand: String, Codable, Sendable, CaseIterable {
    /// Who are you: the service's pid and protocol version.
    case hello
    /// Start a recording (``ControlRequest/args``).
    case start
    /// Stop the recording and finalize every output.
    case stop
    /// Stop the recording and delete everything it wrote.
    case discard
    /// Pause the recording.
    case pause
    /// Resume a paused recording.
    case resume
    /// The status report.
    case status
    /// Subscribe to events: the connection then streams one event per line.
    case events
    /// Stop the service (finishing a recording in progress first).
    case shutdown
    /// Save the replay buffer's last seconds to an MP4 (``ControlRequest/options``: `seconds`,
    /// `output`, `overwrite`); performed by whichever handler declares the action `save-replay`.
    case saveReplay = "save-replay"
    /// Add a chapter marker at the current broadcast time (``ControlRequest/options``: `title`).
    case mark
    /// Close the current file part at the next key frame and continue into a new one; performed
    /// by whichever handler declares the action `split` (the file). Answers once the closed
    /// part is finalized, with its `path`.
    case split
    /// Queue files for upload (``ControlRequest/options``: `files`, `upload`): answers with the
    /// queued uploads at once; the service carries them out (docs/UPLOADS.md).
    case upload
    /// Every upload the service knows, with its state and progress (`uploads`).
    case uploads
    /// Pause the upload `uploadId` (after the parts in flight).
    case uploadPause = "upload-pause"
    /// Resume the paused or failed upload `uploadId`.
    case uploadResume = "upload-resume"
    /// Cancel the upload `uploadId`: the unfinished upload is removed from the server.
    case uploadCancel = "upload-cancel"
    /// Switch an audio track of the running recording off (silence, no gap) or back on
    /// (``ControlRequest/options``: `track` "mic" or "app", `enabled`): ReplayKit's
    /// `isMicrophoneEnabled`. Answers with the switch's broadcast `time`.
    case audioSwitch = "audio-switch"
    /// Switch the camera's corner of the running recording off (hidden) or back on
    /// (``ControlRequest/options``: `enabled`): ReplayKit's `isCameraEnabled`. Answers with the
    /// switch's broadcast `time`.
    case cameraSwitch = "camera-switch"
    /// Write the recording's newest picture as an image (``ControlRequest/options``: `output`
    /// absolute, `overwrite`, `format` "png"/"jpg", `width`, `height`, `quality`); answers
    /// with its `path`.
    case screenshot
}

/// A request: `{"v":1,"id":"7","cmd":"start","args":{…}}`.
package struct ControlRequest: Codable, Sendable {
    /// Protocol version of the client.
    package var v: Int
    /// Echoed in the reply, so a client can match replies to requests.
    package var id: String?
    /// The command.
    package var cmd: ControlCommand
    /// Arguments of `start`.
    package var args: StartArguments?
    /// Arguments of the other commands that take some (`save-replay`, `mark`).
    package var options: CommandOptions?

    /// Creates a request.
    package init(cmd: ControlCommand, id: String? = nil, args: StartArguments? = nil, options: CommandOptions? = nil) {
        self.v = ControlProtocol.version
        self.id = id
        self.cmd = cmd
        self.args = args
        self.options = options
    }
}

/// A reply: `{"v":1,"id":"7","ok":true,"result":{…}}` or `{"v":1,"id":"7","ok":false,"error":{…}}`.
package struct ControlReply: Codable, Sendable {
    /// Protocol version of the service.
    package var v: Int = ControlProtocol.version
    /// The request's id.
    package var id: String?
    /// Whether the request succeeded.
    package var ok: Bool
    /// The result, on success.
    package var result: ControlResult?
    /// The error, on failure.
    package var error: ControlError?
    /// An event (only on an `events` subscription).
    package var event: ServiceEvent?

    /// Creates a reply (a success, a failure or an event).
    package init(id: String? = nil, ok: Bool, result: ControlResult? = nil, error: ControlError? = nil, event: ServiceEvent? = nil) {
        self.id = id
        self.ok = ok
        self.result = result
        self.error = error
        self.event = event
    }

    /// A success.
    package static func success(_ id: String?, _ result: ControlResult) -> ControlReply {
        ControlReply(id: id, ok: true, result: result)
    }
    /// A failure.
    package static func failure(_ id: String?, _ error: ControlError) -> ControlReply {
        ControlReply(id: id, ok: false, error: error)
    }
}

/// The stable error codes of the control protocol, by their wire names.
package enum ControlErrorCode: String, Codable, Sendable, CaseIterable {
    /// The line is not a JSON request object with `v` and `cmd`.
    case badRequest = "bad_request"
    /// `cmd` names no command.
    case unknownCommand = "unknown_command"
    /// The request line is longer than ``ControlProtocol/maxLineBytes``.
    case tooLarge = "too_large"
    /// The client's protocol version is not spoken here.
    case version
    /// Another recording is in progress, or another service owns the socket.
    case busy
    /// Nothing is recording.
    case notRecording = "not_recording"
    /// The command does not fit the recording's state.
    case invalidState = "invalid_state"
    /// A malformed argument (region, fps, setup value, unknown extension).
    case badArgument = "bad_argument"
    /// The display, the audio server, the window or the service is not there.
    case unavailable
    /// An output cannot be created.
    case cannotCreateOutput = "cannot_create_output"
    /// The peer belongs to another user.
    case permissionDenied = "permission_denied"
    /// An events subscriber fell too far behind and was disconnected.
    case tooSlow = "too_slow"
    /// Anything else.
    case failed

    /// Decodes a code; one this build does not know (a newer service) reads as ``failed``.
    package init(from decoder: any Decoder) throws {
        self = ControlErrorCode(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .failed
    }
}

/// An error reply: a stable code for programs and a message for people.
package struct ControlError: Codable, Sendable, Error, CustomStringConvertible {
    /// The stable code.
    package var code: ControlErrorCode
    /// What failed and what to do.
    package var message: String

    /// Creates an error.
    package init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
