import Foundation
import Glibc
import RecordCtlSupport
import RecordKitService

/// The live switches of a foreground `recordctl record`: `recordctl mic|app-audio|camera off|on`
/// typed in another terminal reach it as they reach the service's recording. It listens on its
/// own socket beside the service's (``ServicePaths/foregroundRecording``: the same private
/// directory, 0600, the peer's uid checked), and answers only `hello`, `audio-switch` and
/// `camera-switch`; anything else is refused with a message that says how to stop it (Ctrl-C).
/// One foreground recording per user owns the socket; a second one records without it and says
/// so. Each switch is printed on standard error with its time.
///
/// Threads: its own accept thread and one per client (``ControlServer``); the switches run on
/// the recorder's control queue (``RecordingSession``), never on Swift's cooperative pool.
final class ForegroundSwitches: Sendable {
    private let server: ControlServer

    /// Binds the socket for `session`; nil, with a note on standard error, when another
    /// foreground recording owns it or it cannot be made.
    init?(session: RecordingSession) {
        let paths = ServicePaths().foregroundRecording
        let server = ControlServer(paths: paths) { request, _ in Self.handle(request, session: session) }
        do throws(ControlError) { try server.bind() } catch {
            Console.error(error.code == .busy
                ? "another `recordctl record` owns \(paths.socketPath): `recordctl mic|camera` switch that one, not this one"
                : "the live switches (`recordctl mic|camera`) cannot reach this recording: \(error.message)")
            return nil
        }
        self.server = server
        Thread.detachNewThread { server.serve() }
    }

    /// Stops listening and removes the socket.
    func stop() { server.stop() }

    private static func handle(_ request: ControlRequest, session: RecordingSession) -> ControlReply {
        let id = request.id
        do throws(ControlError) {
            var r = ControlResult()
            switch request.cmd {
            case .hello:
                r.pid = getpid()
                r.version = ControlProtocol.version
            case .audioSwitch:
                let options = request.options ?? CommandOptions()
                let track = options.track ?? "mic"
                guard track == "mic" || track == "app" else {
                    throw ControlError(.badArgument, "unknown audio track '\(track)': use \"mic\" or \"app\"")
                }
                guard let enabled = options.enabled else { throw ControlError(.badArgument, "audio-switch needs \"enabled\"") }
                r.time = try session.setAudioEnabled(enabled, track: track == "mic" ? .audioMic : .audioApp)
                Console.error(String(format: "%@ %@ at %.3f s", track == "mic" ? "mic" : "app audio", enabled ? "on" : "off", r.time ?? 0))
            case .cameraSwitch:
                guard let enabled = request.options?.enabled else { throw ControlError(.badArgument, "camera-switch needs \"enabled\"") }
                r.time = try session.setCameraEnabled(enabled)
                Console.error(String(format: "camera %@ at %.3f s", enabled ? "on" : "off", r.time ?? 0))
            default:
                throw ControlError(.invalidState, "this is a foreground `recordctl record` (pid \(getpid())): it takes only "
                                   + "`recordctl mic|app-audio|camera off|on`; stop it with Ctrl-C in its terminal")
            }
            r.state = session.state.rawValue
            return .success(id, r)
        } catch {
            return .failure(id, error)
        }
    }
}
