import Foundation
import Glibc
import RecordKitControl

/// Record, replay buffer and stream as outputs of the service's one recording: started (added to
/// a running capture), stopped (that output alone while others run), toggled, paused and resumed.
extension OBSRecordKitRequests {
    /// The recording in progress when it has `output`, else nil.
    func recording(with output: OBSOutputKind) -> ServiceStatus.Recording? {
        guard let r = status()?.recording, r.recorder.handlers.contains(where: { output.matches(handler: $0.name) && $0.state != .failed })
        else { return nil }
        return r
    }

    /// The service's status, nil when it cannot be had.
    func status() -> ServiceStatus? { (try? call(.status).get())?.status }

    /// StartRecord, StartReplayBuffer, StartStream: a recording with `output`, or `output` added to the running one.
    func start(_ output: OBSOutputKind) -> OBSRequestResult {
        if let running = status()?.recording, running.recorder.handlers.contains(where: { output.matches(handler: $0.name) && $0.state != .failed }) {
            return .failure(.outputRunning, "the output is already active")
        }
        if output == .stream, settings.streamURL == nil {
            return .failure(.outputDisabled, "no stream endpoint configured: set [obs-websocket] stream-url in the config file")
        }
        // With a recording running, the service adds this output to the same capture (one set of encoders).
        return call(.start, args: settings.startArguments(for: output)).map { _ in .success() }
    }

    /// The names of `output`'s handlers in the running recording `running`, and whether they are all it has.
    func handlers(of output: OBSOutputKind, in running: ServiceStatus.Recording) -> (names: [String], alone: Bool) {
        let live = running.recorder.handlers.filter { $0.state != .failed }
        let names = live.filter { output.matches(handler: $0.name) }.map(\.name)
        return (names, names.count == live.count)
    }

    /// StopRecord, StopReplayBuffer, StopStream: the recording when `output` is all it has, else that output alone.
    func stop(_ output: OBSOutputKind) -> OBSRequestResult {
        guard let running = recording(with: output) else { return .failure(.outputNotRunning, "the output is not active") }
        let (names, alone) = handlers(of: output, in: running)
        if alone {
            return call(.stop).map { result in
                output == .record ? .success(["outputPath": result.outputs?.first { $0.hasPrefix("/") }.map(OBSValue.string) ?? .null]) : .success()
            }
        }
        // Only this output stops; the capture and the other outputs go on.
        var path: OBSValue = .null
        for name in names {
            var options = CommandOptions()
            options.outputId = name
            switch call(.stop, options: options) {
            case .success(let result):
                if let p = result.outputs?.first(where: { $0.hasPrefix("/") }) { path = .string(p) }
            case .failure(let error):
                return .failure(.requestProcessingFailed, error.message)
            }
        }
        return output == .record ? .success(["outputPath": path]) : .success()
    }

    /// The Toggle… requests: stop when active, else start; answers the new `outputActive`.
    func toggle(_ output: OBSOutputKind) -> OBSRequestResult {
        let active = recording(with: output) != nil
        let result = active ? stop(output) : start(output)
        guard result.status == .success else { return result }
        return .success(["outputActive": .bool(!active)])
    }

    /// PauseRecord, ResumeRecord, ToggleRecordPause: the whole recording, or the file alone beside other outputs.
    func pauseResume(_ requestType: String) -> OBSRequestResult {
        guard let r = recording(with: .record) else { return .failure(.outputNotRunning, "not recording") }
        let (names, alone) = handlers(of: .record, in: r)
        // The file alone pauses when other outputs share the capture (a replay buffer goes on).
        let paused = alone ? r.state == "paused" : r.recorder.handlers.contains { names.contains($0.name) && $0.paused == true }
        let act: (ControlCommand) -> Result<ControlResult, ControlError> = { cmd in
            guard !alone else { return self.call(cmd) }
            for name in names {
                var options = CommandOptions()
                options.outputId = name
                if case .failure(let error) = self.call(cmd, options: options) { return .failure(error) }
            }
            return .success(ControlResult())
        }
        switch requestType {
        case "PauseRecord":
            if paused { return .failure(.outputPaused, "the recording is already paused") }
            return act(.pause).map { _ in .success() }
        case "ResumeRecord":
            if !paused { return .failure(.outputNotPaused, "the recording is not paused") }
            return act(.resume).map { _ in .success() }
        default:
            return act(paused ? .resume : .pause).map { _ in .success(["outputPaused": .bool(!paused)]) }
        }
    }
}
