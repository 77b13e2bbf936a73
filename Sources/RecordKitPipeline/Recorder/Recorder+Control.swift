import Dispatch
import Foundation
import RecordKit
import Synchronization

/// What carries out a handler's ``BroadcastControlRequest`` for the recording's owner: the
/// service installs one so that a stop from the preview page is journaled and concluded as
/// `recordctl stop` is. Called on a thread of its own (never a handler's queue); calls
/// `completion` once.
package typealias RecordingControlHandler = @Sendable (BroadcastControlRequest, @escaping @Sendable (BroadcastError?) -> Void) -> Void

/// The link from every handler context of one recording to its recorder and the owner's
/// control handler; weak, so a handler that outlives the recording holds nothing.
final class RecordingControlLink: Sendable {
    private struct State {
        weak var recorder: Recorder?
        var handler: RecordingControlHandler?
    }
    private let state = Mutex(State())
    private static let queue = DispatchQueue(label: "recordkit.recorder.handler-control", attributes: .concurrent)

    func attach(_ recorder: Recorder) { state.withLock { $0.recorder = recorder } }

    func install(_ handler: RecordingControlHandler?) { state.withLock { $0.handler = handler } }

    /// The recorder's status as JSON (an empty object once the recorder is gone).
    func statusJSON() -> [UInt8] {
        guard let recorder = state.withLock({ $0.recorder }) else { return Array("{}".utf8) }
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? Array(encoder.encode(recorder.status))) ?? Array("{}".utf8)
    }

    /// Runs `request` on a thread of its own: through the owner's handler when one is
    /// installed, else on the recorder directly.
    func perform(_ request: BroadcastControlRequest, completion: @escaping @Sendable (BroadcastError?) -> Void) {
        let (recorder, handler) = state.withLock { ($0.recorder, $0.handler) }
        Self.queue.async {
            if let handler { return handler(request, completion) }
            guard let recorder else { return completion(BroadcastError(.internalError, "the recording is over")) }
            do throws(RecorderError) {
                switch request {
                case .pause: try recorder.pause(reason: "user")
                case .resume: try recorder.resume(reason: "user")
                case .stop: recorder.stop(reason: "user")
                case .discard: recorder.discard(reason: "user")
                case .micOff, .micOn: _ = try recorder.setAudioEnabled(request == .micOn, track: .audioMic)
                }
                completion(nil)
            } catch {
                completion(BroadcastError(.invalidSetup, error.message))
            }
        }
    }
}

extension Recorder {
    /// Installs what carries out the control requests of this recording's handlers
    /// (``BroadcastControlling``), in place of the default (pause, resume, stop, discard on
    /// this recorder directly). Call before ``start()``.
    package func setControlHandler(_ handler: @escaping RecordingControlHandler) {
        controlLink.install(handler)
    }
}
