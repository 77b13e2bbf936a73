import Dispatch
import Foundation
import RecordKit
import Synchronization

/// What carries out a handler's ``BroadcastControlRequest`` for the recording's owner: the
/// service installs one so that a stop from the preview page is journaled and concluded as
/// `recordctl stop` is. Called on a thread of its own (never a handler's queue); calls
/// `completion` once.
package typealias RecordingControlHandler = @Sendable (BroadcastControlRequest, @escaping @Sendable (BroadcastError?) -> Void) -> Void

/// What turns the recorder's snapshot into the status JSON a handler asks for
/// (``BroadcastControlling/recordingStatusJSON()``): the owner's wire format, which the
/// pipeline does not know. Called on the asking handler's thread.
package typealias RecordingStatusEncoder = @Sendable (RecordingSnapshot) -> [UInt8]

/// The link from every handler context of one recording to its recorder and the owner's
/// control handler; weak, so a handler that outlives the recording holds nothing.
final class RecordingControlLink: Sendable {
    private struct State {
        weak var recorder: Recorder?
        var handler: RecordingControlHandler?
        var statusEncoder: RecordingStatusEncoder?
    }
    private let state = Mutex(State())
    private static let queue = DispatchQueue(label: "recordkit.recorder.handler-control", attributes: .concurrent)

    func attach(_ recorder: Recorder) { state.withLock { $0.recorder = recorder } }

    func install(_ handler: RecordingControlHandler?) { state.withLock { $0.handler = handler } }

    func install(_ encoder: RecordingStatusEncoder?) { state.withLock { $0.statusEncoder = encoder } }

    /// The recorder's status as the owner's JSON (an empty object once the recorder is gone, or
    /// when no owner installed an encoder).
    func statusJSON() -> [UInt8] {
        let (recorder, encoder) = state.withLock { ($0.recorder, $0.statusEncoder) }
        guard let recorder, let encoder else { return Array("{}".utf8) }
        return encoder(recorder.status)
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
                case .cameraOff, .cameraOn: _ = try recorder.setCameraEnabled(request == .cameraOn)
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

    /// Installs what encodes the status JSON handlers ask for (the owner's wire format); without
    /// one they get an empty object. Call before ``start()``.
    package func setStatusEncoder(_ encoder: @escaping RecordingStatusEncoder) {
        controlLink.install(encoder)
    }
}
