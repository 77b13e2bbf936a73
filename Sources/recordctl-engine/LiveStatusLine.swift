import Dispatch
import Foundation
import RecordCtlSupport
import RecordKitService

/// The one-line live display on a terminal: elapsed, fps, dropped frames, bytes written.
final class LiveStatusLine: @unchecked Sendable {
    private let session: RecordingSession
    private let timer: DispatchSourceTimer

    init(session: RecordingSession) {
        self.session = session
        self.timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "recordctl.live"))
    }

    func start() {
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .seconds(1))
        timer.setEventHandler { [session] in
            let s = session.status
            let t = Int(s.recordedSeconds)
            let bytes = s.handlers.reduce(Int64(0)) { total, h in
                guard let path = h.serviceInfo["path"],
                      let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64 else { return total }
                return total + size
            }
            let line = String(format: "\r\u{1B}[K● %@ %02d:%02d  %.1f fps  dropped %lld  %.1f MB",
                              s.state == .paused ? "paused" : "rec", t / 60, t % 60, s.capture.fps, s.capture.framesDropped,
                              Double(bytes) / 1_000_000)
            Console.status(line)
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        Console.status("\r\u{1B}[K")
    }
}
