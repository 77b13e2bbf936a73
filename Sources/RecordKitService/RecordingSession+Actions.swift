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

extension RecordingSession {
    /// ReplayKit's `exportClip(to:duration:completionHandler:)` for a recording started with a
    /// replay buffer (`StartArguments.replayBuffer`): writes the last `duration` seconds (nil:
    /// the whole buffer) to an MP4 at `url` (an absolute path; nil: a timestamped name in the
    /// videos directory) and returns its path once written. Blocks the caller (about a second),
    /// never the recording. Throws `invalid_state` without a replay buffer.
    public func exportClip(to url: String?, duration: Double?) throws(ControlError) -> String {
        var arguments: [String: String] = [:]
        if let url { arguments["path"] = url }
        if let duration { arguments["seconds"] = String(duration) }
        let answer = try perform(action: "save-replay", arguments: arguments)
        guard let path = answer.result["path"] else { throw ControlError(.failed, "the replay buffer saved no file") }
        return path
    }
}
