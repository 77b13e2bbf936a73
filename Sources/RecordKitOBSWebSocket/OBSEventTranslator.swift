import RecordKitControl
import Synchronization

/// Turns the service's events (`recordctl events`) into obs-websocket's: `RecordStateChanged`,
/// `ReplayBufferStateChanged`, `StreamStateChanged` with OBS's output states, `RecordFileChanged`,
/// `ReplayBufferSaved`, `InputMuteStateChanged` (the live audio switches). One translator per server (it remembers which outputs the recording in
/// progress has, and whether it was paused); ``exitStarted`` is the event of a service going away.
///
/// Threading: `translate` is called from one thread at a time (the server's event feed).
package final class OBSEventTranslator: Sendable {
    /// The outputs of the recording in progress, read from the service's status.
    package typealias Outputs = @Sendable (_ recordingId: String) -> Set<OBSOutputKind>

    private struct State {
        var recordingId: String?
        var outputs: Set<OBSOutputKind> = []
        var paused = false
        var recordStopPending = false
        /// The outputs were not known yet at `starting` (the service lists a recording only once
        /// it started): STARTING is said with STARTED.
        var startingUnsaid = false
    }
    private let state = Mutex(State())
    private let outputsOf: Outputs

    package init(outputs: @escaping Outputs) { outputsOf = outputs }

    /// `ExitStarted`: the service is shutting down.
    package static let exitStarted = OBSEvent(type: "ExitStarted", intent: .general)

    /// The obs-websocket events `event` means (often none).
    package func translate(_ event: ServiceEvent) -> [OBSEvent] {
        switch event.kind {
        case "state": return stateChanged(event)
        case "replay-saved":
            guard let path = event.path else { return [] }
            return [OBSEvent(type: "ReplayBufferSaved", intent: .outputs, data: ["savedReplayPath": .string(path)])]
        case "file-part":
            // A part was closed; the next one is being written (its name: the part after it).
            guard let path = event.path else { return [] }
            return [OBSEvent(type: "RecordFileChanged", intent: .outputs, data: ["newOutputPath": .string(Self.nextPart(after: path))])]
        case "mic-off", "mic-on", "app-audio-off", "app-audio-on":
            // The live audio switches (recordctl mic / app-audio, SetInputMute, the hotkey).
            let name = event.kind.hasPrefix("mic") ? "Mic/Aux" : "Desktop Audio"
            return [OBSEvent(type: "InputMuteStateChanged", intent: .inputs,
                             data: ["inputName": .string(name), "inputUuid": .string(name), "inputMuted": .bool(event.kind.hasSuffix("off"))])]
        case "output-started", "output-stopped", "output-paused", "output-resumed":
            return outputChanged(event)
        case "recording-saved":
            let pending: Bool = state.withLock { s in
                defer { s.recordStopPending = false }
                return s.recordStopPending
            }
            guard pending else { return [] }
            return [Self.output("RecordStateChanged", active: false, state: "OBS_WEBSOCKET_OUTPUT_STOPPED",
                                path: event.path.map(OBSValue.string) ?? .null)]
        default:
            return []
        }
    }

    private func stateChanged(_ event: ServiceEvent) -> [OBSEvent] {
        guard event.handler == nil, let id = event.recordingId, let s = event.state else { return [] }
        switch s {
        case "starting":
            let outputs = outputsOf(id)
            state.withLock { $0 = State(recordingId: id, outputs: outputs, startingUnsaid: outputs.isEmpty) }
            return events(for: outputs, active: false, state: "OBS_WEBSOCKET_OUTPUT_STARTING")
        case "recording":
            let known = state.withLock { $0.recordingId == id && !$0.outputs.isEmpty }
            let fresh = known ? [] : outputsOf(id)
            let (outputs, wasPaused, sayStarting): (Set<OBSOutputKind>, Bool, Bool) = state.withLock { st in
                if st.recordingId != id { st = State(recordingId: id, startingUnsaid: true) }
                if st.outputs.isEmpty { st.outputs = fresh }
                defer { st.paused = false; st.startingUnsaid = false }
                return (st.outputs, st.paused, st.startingUnsaid)
            }
            if wasPaused { return outputs.contains(.record) ? [Self.output("RecordStateChanged", active: true, state: "OBS_WEBSOCKET_OUTPUT_RESUMED")] : [] }
            return (sayStarting ? events(for: outputs, active: false, state: "OBS_WEBSOCKET_OUTPUT_STARTING") : [])
                + events(for: outputs, active: true, state: "OBS_WEBSOCKET_OUTPUT_STARTED")
        case "paused":
            let outputs: Set<OBSOutputKind> = state.withLock { $0.paused = true; return $0.outputs }
            return outputs.contains(.record) ? [Self.output("RecordStateChanged", active: true, state: "OBS_WEBSOCKET_OUTPUT_PAUSED")] : []
        case "finishing":
            let outputs = state.withLock { $0.outputs }
            return events(for: outputs, active: false, state: "OBS_WEBSOCKET_OUTPUT_STOPPING")
        case "finished", "failed", "discarded":
            let outputs: Set<OBSOutputKind> = state.withLock { st in
                // A finished recording's file comes with its path in `recording-saved`, right after.
                st.recordStopPending = s == "finished" && st.outputs.contains(.record)
                defer { st.outputs = []; st.recordingId = nil }
                return st.outputs
            }
            let now = s == "finished" ? outputs.subtracting([.record]) : outputs
            return events(for: now, active: false, state: "OBS_WEBSOCKET_OUTPUT_STOPPED")
        default:
            return []
        }
    }

    /// One output added to, removed from, paused or resumed on the running capture (the others go on).
    private func outputChanged(_ event: ServiceEvent) -> [OBSEvent] {
        guard let id = event.recordingId, let name = event.handler,
              let kind = OBSOutputKind.allCases.first(where: { $0.matches(handler: name) }) else { return [] }
        switch event.kind {
        case "output-started":
            let fresh: Bool = state.withLock { st in
                if st.recordingId != id { st = State(recordingId: id) }
                return st.outputs.insert(kind).inserted
            }
            return fresh ? events(for: [kind], active: false, state: "OBS_WEBSOCKET_OUTPUT_STARTING")
                + events(for: [kind], active: true, state: "OBS_WEBSOCKET_OUTPUT_STARTED") : []
        case "output-stopped":
            // Another output of the same kind (a second stream) keeps it active.
            guard !outputsOf(id).contains(kind) else { return [] }
            let known: Bool = state.withLock { $0.outputs.remove(kind) != nil }
            guard known else { return [] }
            var stopped = events(for: [kind], active: false, state: "OBS_WEBSOCKET_OUTPUT_STOPPED")
            if kind == .record { stopped = [Self.output("RecordStateChanged", active: false, state: "OBS_WEBSOCKET_OUTPUT_STOPPED",
                                                        path: event.path.map(OBSValue.string) ?? .null)] }
            return events(for: [kind], active: false, state: "OBS_WEBSOCKET_OUTPUT_STOPPING") + stopped
        default:
            guard kind == .record else { return [] }
            return [Self.output("RecordStateChanged", active: true,
                                state: event.kind == "output-paused" ? "OBS_WEBSOCKET_OUTPUT_PAUSED" : "OBS_WEBSOCKET_OUTPUT_RESUMED")]
        }
    }

    private func events(for outputs: Set<OBSOutputKind>, active: Bool, state: String) -> [OBSEvent] {
        var result: [OBSEvent] = []
        if outputs.contains(.record) { result.append(Self.output("RecordStateChanged", active: active, state: state, path: state.hasSuffix("STOPPED") ? .null : nil)) }
        if outputs.contains(.replayBuffer) { result.append(Self.output("ReplayBufferStateChanged", active: active, state: state)) }
        if outputs.contains(.stream) { result.append(Self.output("StreamStateChanged", active: active, state: state)) }
        return result
    }

    private static func output(_ type: String, active: Bool, state: String, path: OBSValue? = nil) -> OBSEvent {
        var data: [String: OBSValue] = ["outputActive": .bool(active), "outputState": .string(state)]
        if let path { data["outputPath"] = path }
        return OBSEvent(type: type, intent: .outputs, data: .object(data))
    }

    /// `talk-002.mp4` after `talk-001.mp4` (the file extension's part names).
    static func nextPart(after path: String) -> String {
        guard let dash = path.lastIndex(of: "-"), let dot = path.lastIndex(of: "."), dash < dot,
              let n = Int(path[path.index(after: dash)..<dot]) else { return path }
        let digits = path.distance(from: path.index(after: dash), to: dot)
        let next = String(n + 1)
        return String(path[...dash]) + String(repeating: "0", count: max(0, digits - next.count)) + next + String(path[dot...])
    }
}
