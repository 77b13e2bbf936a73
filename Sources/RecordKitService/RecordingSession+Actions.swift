import RecordKit
import RecordKitPipeline

extension RecordingSession {
    /// Performs the handler action `action` (``BroadcastActionHandler``) on every handler that
    /// declares it and returns the first success, or the first failure as a protocol error
    /// (`invalid_state` when no handler performs it). Blocks until the handlers answered.
    public func perform(action: String, arguments: [String: String], timeout: Double = 60) throws(ControlError) -> (handler: String, result: [String: String]) {
        let answers: [HandlerActionResult]
        do throws(RecorderError) { answers = try recorder.perform(action: action, arguments: arguments, timeout: timeout) } catch {
            throw error.controlError
        }
        var firstFailure: ControlError?
        for answer in answers {
            switch answer.result {
            case .success(let values): return (answer.handler, values)
            case .failure(let error):
                if firstFailure == nil { firstFailure = ControlError(Self.code(for: error.kind), error.message) }
            }
        }
        throw firstFailure ?? ControlError(.failed, "no handler answered '\(action)'")
    }

    private static func code(for kind: BroadcastError.Kind) -> ControlErrorCode {
        switch kind {
        case .invalidSetup: return .badArgument
        case .outputFailed: return .cannotCreateOutput
        default: return .failed
        }
    }
}

extension RecordingSession {
    /// Adds a marker titled `title` at the current broadcast time (see ``Recorder/mark(title:applicationInfo:)``);
    /// returns its time in seconds.
    public func mark(title: String) throws(ControlError) -> Double {
        do throws(RecorderError) { return try recorder.mark(title: title).time.seconds } catch { throw error.controlError }
    }
}
