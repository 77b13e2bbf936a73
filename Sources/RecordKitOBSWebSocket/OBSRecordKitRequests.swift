import RecordKitControl
import Foundation
import Glibc
import Synchronization

/// obs-websocket's requests answered by RecordKit: each one becomes requests of the service's one
/// request API (`port`: the same `ControlRequest`s `recordctl` sends), its answer the response data
/// OBS would give. Record, replay buffer and stream are three outputs of the service's one
/// recording; scenes, profiles and hotkeys have empty but valid answers, for controllers that ask
/// at connect (docs/OBS-WEBSOCKET.md has the table).
///
/// Threading: any thread; requests may block while the service starts or stops a recording.
package final class OBSRecordKitRequests: OBSRequestHandling {
    /// The service's request API: one request in, its reply out.
    package typealias Port = @Sendable (ControlRequest) -> ControlReply

    private let port: Port
    private let settings: OBSRecordingSettings
    private let lastReplay = Mutex<String?>(nil)

    /// Requests answered here, in GetVersion's `availableRequests`.
    package static let availableRequests: [String] = [
        "GetVersion", "GetStats", "GetRecordStatus", "StartRecord", "StopRecord", "ToggleRecord", "PauseRecord", "ResumeRecord",
        "ToggleRecordPause", "SplitRecordFile", "CreateRecordChapter", "GetRecordDirectory", "SetRecordDirectory",
        "GetReplayBufferStatus", "StartReplayBuffer", "StopReplayBuffer", "ToggleReplayBuffer", "SaveReplayBuffer",
        "GetLastReplayBufferReplay", "GetStreamStatus", "StartStream", "StopStream", "ToggleStream",
        "GetInputList", "GetInputMute", "SetInputMute", "ToggleInputMute", "GetSpecialInputs",
        "GetSourceScreenshot", "SaveSourceScreenshot",
        "GetSceneList", "GetCurrentProgramScene", "GetSceneCollectionList", "GetProfileList", "GetHotkeyList",
        "GetStudioModeEnabled", "GetOutputList", "Sleep",
    ]

    /// The audio inputs: the microphone and the application audio.
    static let inputs: [(name: String, kind: String)] = [("Mic/Aux", "pulse_input_capture"), ("Desktop Audio", "pulse_output_capture")]

    package init(port: @escaping Port, settings: OBSRecordingSettings) {
        self.port = port
        self.settings = settings
    }

    /// Remembers the path of the last replay clip saved (from the service's `replay-saved` event or a SaveReplayBuffer).
    package func noteReplaySaved(_ path: String) { lastReplay.withLock { $0 = path } }

    package func handle(requestType: String, requestData: OBSValue?) -> OBSRequestResult {
        switch requestType {
        case "GetVersion":
            return .success(["obsVersion": "30.0.0", "obsWebSocketVersion": .string(OBSSession.obsWebSocketVersion),
                             "rpcVersion": .int(OBSSession.rpcVersion), "platform": "linux",
                             "platformDescription": "RecordKit (obs-websocket 5 compatible)",
                             "availableRequests": .array(Self.availableRequests.map { .string($0) }),
                             "supportedImageFormats": .array(OBSSourceScreenshot.formats.map { .string($0) })])
        case "GetStats": return stats()
        case "GetRecordStatus": return recordStatus()
        case "StartRecord": return start(.record)
        case "StopRecord": return stop(.record)
        case "ToggleRecord": return toggle(.record)
        case "PauseRecord", "ResumeRecord", "ToggleRecordPause": return pauseResume(requestType)
        case "SplitRecordFile":
            guard recording(with: .record) != nil else { return .failure(.outputNotRunning, "not recording") }
            return call(.split).map { _ in .success() }
        case "CreateRecordChapter":
            guard recording(with: .record) != nil else { return .failure(.outputNotRunning, "not recording") }
            var options = CommandOptions()
            if let name = requestData?["chapterName"] {
                guard let s = name.string else { return .failure(.invalidRequestFieldType, "chapterName must be a string") }
                options.title = s
            }
            return call(.mark, options: options).map { _ in .success() }
        case "GetRecordDirectory": return .success(["recordDirectory": .string(settings.recordDirectory)])
        case "SetRecordDirectory":
            guard let value = requestData?["recordDirectory"] else { return .failure(.missingRequestField, "recordDirectory is required") }
            guard let path = value.string else { return .failure(.invalidRequestFieldType, "recordDirectory must be a string") }
            var isDirectory: ObjCBool = false
            guard path.hasPrefix("/"), FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                  access(path, W_OK) == 0 else {
                return .failure(.invalidRequestField, "recordDirectory must be an existing, writable directory given by its absolute path")
            }
            settings.recordDirectory = path
            return .success()
        case "GetReplayBufferStatus": return .success(["outputActive": .bool(recording(with: .replayBuffer) != nil)])
        case "StartReplayBuffer": return start(.replayBuffer)
        case "StopReplayBuffer": return stop(.replayBuffer)
        case "ToggleReplayBuffer": return toggle(.replayBuffer)
        case "SaveReplayBuffer":
            guard recording(with: .replayBuffer) != nil else { return .failure(.outputNotRunning, "the replay buffer is not active") }
            return call(.saveReplay, options: CommandOptions()).map { result in
                if let path = result.path { noteReplaySaved(path) }
                return .success()
            }
        case "GetLastReplayBufferReplay":
            guard recording(with: .replayBuffer) != nil else { return .failure(.outputNotRunning, "the replay buffer is not active") }
            guard let path = lastReplay.withLock({ $0 }) else { return .failure(.resourceNotFound, "no replay was saved yet") }
            return .success(["savedReplayPath": .string(path)])
        case "GetStreamStatus": return streamStatus()
        case "StartStream": return start(.stream)
        case "StopStream": return stop(.stream)
        case "ToggleStream": return toggle(.stream)
        case "GetInputList":
            if let kind = requestData?["inputKind"]?.string, !Self.inputs.contains(where: { $0.kind == kind }) { return .success(["inputs": []]) }
            return .success(["inputs": .array(Self.inputs.map { ["inputName": .string($0.name), "inputKind": .string($0.kind),
                                                                 "unversionedInputKind": .string($0.kind), "inputUuid": .string($0.name)] })])
        case "GetSpecialInputs":
            return .success(["desktop1": "Desktop Audio", "desktop2": .null, "mic1": "Mic/Aux", "mic2": .null, "mic3": .null, "mic4": .null])
        case "GetInputMute", "SetInputMute", "ToggleInputMute": return inputMute(requestType, requestData)
        case "GetSourceScreenshot", "SaveSourceScreenshot":
            return OBSSourceScreenshot.answer(requestType, requestData) { options in call(.screenshot, options: options) }
        case "GetSceneList": return .success(["currentProgramSceneName": .null, "currentPreviewSceneName": .null, "scenes": []])
        case "GetCurrentProgramScene": return .failure(.resourceNotFound, "RecordKit has no scenes: it records the screen")
        case "GetSceneCollectionList": return .success(["currentSceneCollectionName": "", "sceneCollections": []])
        case "GetProfileList": return .success(["currentProfileName": "", "profiles": []])
        case "GetHotkeyList": return .success(["hotkeys": []])
        case "GetStudioModeEnabled": return .success(["studioModeEnabled": false])
        case "GetOutputList":
            return .success(["outputs": .array([("adv_file_output", OBSOutputKind.record), ("Replay Buffer", .replayBuffer), ("adv_stream", .stream)].map {
                ["outputName": .string($0.0), "outputActive": .bool(recording(with: $0.1) != nil)]
            })])
        default:
            return .failure(.unknownRequestType, "RecordKit does not answer \(requestType); GetVersion lists what it does")
        }
    }

    // MARK: Outputs

    /// The recording in progress when it has `output`, else nil.
    private func recording(with output: OBSOutputKind) -> ServiceStatus.Recording? {
        guard let r = status()?.recording, r.recorder.handlers.contains(where: { output.matches(handler: $0.name) && $0.state != .failed })
        else { return nil }
        return r
    }

    private func status() -> ServiceStatus? { (try? call(.status).get())?.status }

    private func start(_ output: OBSOutputKind) -> OBSRequestResult {
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
    private func handlers(of output: OBSOutputKind, in running: ServiceStatus.Recording) -> (names: [String], alone: Bool) {
        let live = running.recorder.handlers.filter { $0.state != .failed }
        let names = live.filter { output.matches(handler: $0.name) }.map(\.name)
        return (names, names.count == live.count)
    }

    private func stop(_ output: OBSOutputKind) -> OBSRequestResult {
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

    private func toggle(_ output: OBSOutputKind) -> OBSRequestResult {
        let active = recording(with: output) != nil
        let result = active ? stop(output) : start(output)
        guard result.status == .success else { return result }
        return .success(["outputActive": .bool(!active)])
    }

    private func pauseResume(_ requestType: String) -> OBSRequestResult {
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

    private func recordStatus() -> OBSRequestResult {
        guard let r = recording(with: .record) else {
            return .success(["outputActive": false, "outputPaused": false, "outputTimecode": "00:00:00.000", "outputDuration": 0, "outputBytes": 0])
        }
        let file = r.recorder.handlers.first { OBSOutputKind.record.matches(handler: $0.name) }
        let ms = Int64((r.recorder.recordedSeconds * 1000).rounded())
        return .success(["outputActive": true, "outputPaused": .bool(r.state == "paused" || file?.paused == true), "outputTimecode": .string(Self.timecode(ms)),
                         "outputDuration": .int(ms), "outputBytes": .int(Int64(file?.statistics.bytesDelivered ?? 0))])
    }

    private func streamStatus() -> OBSRequestResult {
        guard let r = recording(with: .stream) else {
            return .success(["outputActive": false, "outputReconnecting": false, "outputTimecode": "00:00:00.000", "outputDuration": 0,
                             "outputCongestion": 0, "outputBytes": 0, "outputSkippedFrames": 0, "outputTotalFrames": 0])
        }
        let streams = r.recorder.handlers.filter { OBSOutputKind.stream.matches(handler: $0.name) }
        let ms = Int64((r.recorder.recordedSeconds * 1000).rounded())
        return .success(["outputActive": true, "outputReconnecting": .bool(streams.contains { $0.serviceInfo["state"]?.hasPrefix("reconnecting") == true }),
                         "outputTimecode": .string(Self.timecode(ms)), "outputDuration": .int(ms), "outputCongestion": 0,
                         "outputBytes": .int(Int64(streams.map(\.statistics.bytesDelivered).reduce(0, +))),
                         "outputSkippedFrames": .int(Int64(streams.map(\.statistics.droppedVideo).reduce(0, +))),
                         "outputTotalFrames": .int(Int64(streams.map(\.statistics.delivered).reduce(0, +)))])
    }

    private func stats() -> OBSRequestResult {
        let r = status()?.recording
        let c = r?.recorder.capture
        var fs = statvfs()
        let disk = statvfs(settings.recordDirectory, &fs) == 0 ? Double(fs.f_bavail) * Double(fs.f_frsize) / 1_048_576 : 0
        return .success(["cpuUsage": 0, "memoryUsage": .double(Self.residentMegabytes()), "availableDiskSpace": .double(disk),
                         "activeFps": .double(c?.fps ?? 0), "averageFrameRenderTime": 0,
                         "renderSkippedFrames": .int(Int64(c?.framesDropped ?? 0)), "renderTotalFrames": .int(Int64(c?.framesCaptured ?? 0)),
                         "outputSkippedFrames": .int(Int64(c?.framesDropped ?? 0)), "outputTotalFrames": .int(Int64(c?.framesCaptured ?? 0)),
                         "webSocketSessionIncomingMessages": 0, "webSocketSessionOutgoingMessages": 0])
    }

    /// The input mute requests, on the recording's live audio switches (`audio-switch`): "Mic/Aux"
    /// is the microphone track, "Desktop Audio" the app-audio track; muted means the track records
    /// silence (no gap). Without a recording, or for a track the recording does not have, an
    /// input reads as muted and cannot be unmuted (`invalidResourceState`).
    private func inputMute(_ requestType: String, _ data: OBSValue?) -> OBSRequestResult {
        guard let field = data?["inputName"] ?? data?["inputUuid"] else { return .failure(.missingRequestField, "inputName is required") }
        guard let name = field.string else { return .failure(.invalidRequestFieldType, "inputName must be a string") }
        guard Self.inputs.contains(where: { $0.name == name }) else { return .failure(.resourceNotFound, "no input named \(name); GetInputList lists them") }
        let isMic = name == "Mic/Aux"
        let capture = status()?.recording?.recorder.capture
        let trackName = isMic ? "audioMic" : "audioApp"
        let hasTrack = capture?.audioTracks.contains(trackName) ?? false
        let muted = !hasTrack || (capture?.audioMuted ?? []).contains(trackName)
        let target: Bool
        switch requestType {
        case "GetInputMute": return .success(["inputMuted": .bool(muted)])
        case "ToggleInputMute": target = !muted
        default:
            guard let value = data?["inputMuted"] else { return .failure(.missingRequestField, "inputMuted is required") }
            guard case .bool(let b) = value else { return .failure(.invalidRequestFieldType, "inputMuted must be a boolean") }
            target = b
        }
        guard hasTrack else {
            if target { return requestType == "ToggleInputMute" ? .failure(.invalidResourceState, Self.noTrack(name, recording: capture != nil)) : .success() }
            return .failure(.invalidResourceState, Self.noTrack(name, recording: capture != nil))
        }
        var options = CommandOptions()
        options.track = isMic ? "mic" : "app"
        options.enabled = !target
        return call(.audioSwitch, options: options).map { _ in
            requestType == "ToggleInputMute" ? .success(["inputMuted": .bool(target)]) : .success()
        }
    }

    private static func noTrack(_ name: String, recording: Bool) -> String {
        recording ? "the recording has no \(name) track (started with --no-mic / --no-app-audio, or its source was missing): it stays muted"
                  : "\(name) is live only while a recording runs: start one (StartRecord), then unmute it"
    }

    // MARK: Helpers

    private func call(_ cmd: ControlCommand, args: StartArguments? = nil, options: CommandOptions? = nil) -> Result<ControlResult, ControlError> {
        let reply = port(ControlRequest(cmd: cmd, id: "obs", args: args, options: options))
        if reply.ok, let result = reply.result { return .success(result) }
        if reply.ok { return .success(ControlResult()) }
        return .failure(reply.error ?? ControlError(.failed, "the service gave no answer"))
    }

    /// `HH:MM:SS.mmm`.
    static func timecode(_ ms: Int64) -> String {
        String(format: "%02lld:%02lld:%02lld.%03lld", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}

extension Result where Success == ControlResult, Failure == ControlError {
    /// The request's result from the service's reply: `transform` on success, else the status the
    /// service's error code means in obs-websocket's terms.
    func map(_ transform: (ControlResult) -> OBSRequestResult) -> OBSRequestResult {
        switch self {
        case .success(let r): return transform(r)
        case .failure(let e): return .failure(OBSRecordKitRequests.status(for: e.code), e.message)
        }
    }
}

extension OBSRecordKitRequests {
    /// obs-websocket's status for a control error code.
    static func status(for code: ControlErrorCode) -> OBSRequestStatus {
        switch code {
        case .notRecording: return .outputNotRunning
        case .busy: return .outputRunning
        case .invalidState: return .invalidResourceState
        case .badArgument: return .invalidRequestField
        case .unavailable, .cannotCreateOutput, .permissionDenied: return .resourceActionFailed
        default: return .requestProcessingFailed
        }
    }
}
