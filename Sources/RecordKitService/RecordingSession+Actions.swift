import RecordKit
import RecordKitExtensions
import RecordKitPipeline

extension RecordingSession {
    /// Performs the handler action `action` (``BroadcastActionHandler``) on every handler that
    /// declares it and returns the first success, or the first failure as a protocol error
    /// (`invalid_state` when no handler performs it). Blocks until the handlers answered.
    package func perform(action: String, arguments: [String: String], timeout: Double = 60) throws(ControlError) -> (handler: String, result: [String: String]) {
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
    package func mark(title: String) throws(ControlError) -> Double {
        do throws(RecorderError) { return try recorder.mark(title: title).time.seconds } catch { throw error.controlError }
    }
}

extension RecordingSession {
    /// ReplayKit's `exportClip(to:duration:completionHandler:)` for a recording started with a
    /// replay buffer (`--replay-buffer`): writes the last `duration` seconds (nil:
    /// the whole buffer) to an MP4 at `url` (an absolute path; nil: a timestamped name in the
    /// videos directory) and returns its path once written. Blocks the caller (about a second),
    /// never the recording. Throws `invalid_state` without a replay buffer.
    package func exportClip(to url: String?, duration: Double?) throws(ControlError) -> String {
        var arguments: [String: String] = [:]
        if let url { arguments["path"] = url }
        if let duration { arguments["seconds"] = String(duration) }
        let answer = try perform(action: "save-replay", arguments: arguments)
        guard let path = answer.result["path"] else { throw ControlError(.failed, "the replay buffer saved no file") }
        return path
    }
}

extension RecordingSession {
    /// ReplayKit's `startClipBuffering`: the recording's replay buffer keeps the last seconds
    /// again (from the next key frame) after ``stopClipBuffering()``; nothing changes while it
    /// buffers already. The recording must have been started with a replay buffer
    /// (`--replay-buffer`; a running recording cannot gain one). Blocks until the
    /// buffer answered (milliseconds). Throws `invalid_state` without a replay buffer.
    package func startClipBuffering() throws(ControlError) {
        _ = try clipBufferingAction("start-buffering")
    }

    /// ReplayKit's `stopClipBuffering`: the replay buffer lets go of everything it holds and
    /// keeps nothing more until ``startClipBuffering()``; ``exportClip(to:duration:)`` fails
    /// meanwhile. The recording itself (a file, a stream) goes on untouched. Throws
    /// `invalid_state` without a replay buffer.
    package func stopClipBuffering() throws(ControlError) {
        _ = try clipBufferingAction("stop-buffering")
    }

    private func clipBufferingAction(_ action: String) throws(ControlError) -> [String: String] {
        do throws(ControlError) {
            return try perform(action: action, arguments: [:], timeout: 10).result
        } catch where error.code == .invalidState && (state == .recording || state == .paused) {
            throw ControlError(.invalidState, "this recording has no replay buffer; start it with a replay buffer (`--replay-buffer SECONDS`)")
        }
    }
}

extension RecordingSession {
    /// The newest picture as an image (``Recorder/screenshot(format:width:height:quality:)``).
    package func screenshot(format: String, width: Int?, height: Int?, quality: Int?) throws(ControlError) -> (bytes: [UInt8], width: Int, height: Int) {
        do throws(RecorderError) { return try recorder.screenshot(format: format, width: width, height: height, quality: quality) } catch { throw error.controlError }
    }

    /// Switches the recording's `track` (`.audioMic`, `.audioApp`) on or off
    /// (``Recorder/setAudioEnabled(_:track:)``); returns the switch's broadcast time in seconds.
    package func setAudioEnabled(_ enabled: Bool, track: SampleBufferType) throws(ControlError) -> Double {
        do throws(RecorderError) { return try recorder.setAudioEnabled(enabled, track: track) } catch { throw error.controlError }
    }

    /// Switches the recording's camera corner on or off (``Recorder/setCameraEnabled(_:)``);
    /// returns the switch's broadcast time in seconds.
    package func setCameraEnabled(_ enabled: Bool) throws(ControlError) -> Double {
        do throws(RecorderError) { return try recorder.setCameraEnabled(enabled) } catch { throw error.controlError }
    }
}
