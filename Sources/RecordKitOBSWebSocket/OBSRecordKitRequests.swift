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
///
/// The outputs' requests are in `OBSRecordKitRequests+Outputs.swift`, the status requests in
/// `+Status.swift`, the audio inputs' mute requests in `+Inputs.swift`.
package final class OBSRecordKitRequests: OBSRequestHandling {
    /// The service's request API: one request in, its reply out.
    package typealias Port = @Sendable (ControlRequest) -> ControlReply

    let port: Port
    let settings: OBSRecordingSettings
    let lastReplay = Mutex<String?>(nil)

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

    // MARK: Helpers

    /// Sends one request through the service's request API; its result, or its error.
    func call(_ cmd: ControlCommand, args: StartArguments? = nil, options: CommandOptions? = nil) -> Result<ControlResult, ControlError> {
        let reply = port(ControlRequest(cmd: cmd, id: "obs", args: args, options: options))
        if reply.ok, let result = reply.result { return .success(result) }
        if reply.ok { return .success(ControlResult()) }
        return .failure(reply.error ?? ControlError(.failed, "the service gave no answer"))
    }

    /// `HH:MM:SS.mmm`.
    static func timecode(_ ms: Int64) -> String {
        String(format: "%02lld:%02lld:%02lld.%03lld", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
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
