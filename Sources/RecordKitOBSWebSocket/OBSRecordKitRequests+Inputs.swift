import Foundation
import Glibc
import RecordKitControl

/// The audio inputs' mute requests (GetInputMute, SetInputMute, ToggleInputMute).
extension OBSRecordKitRequests {
    /// The input mute requests, on the recording's live audio switches (`audio-switch`): "Mic/Aux"
    /// is the microphone track, "Desktop Audio" the app-audio track; muted means the track records
    /// silence (no gap). Without a recording, or for a track the recording does not have, an
    /// input reads as muted and cannot be unmuted (`invalidResourceState`).
    func inputMute(_ requestType: String, _ data: OBSValue?) -> OBSRequestResult {
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

    /// Why an input without its track stays muted.
    static func noTrack(_ name: String, recording: Bool) -> String {
        recording ? "the recording has no \(name) track (started with --no-mic / --no-app-audio, or its source was missing): it stays muted"
                  : "\(name) is live only while a recording runs: start one (StartRecord), then unmute it"
    }
}
