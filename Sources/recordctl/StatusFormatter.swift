import Foundation
import RecordCtlSupport
import RecordKitControl

/// Human-readable status and event lines.
enum StatusFormatter {
    /// The multi-line status report.
    static func text(_ s: ServiceStatus) -> String {
        var lines: [String] = []
        if let r = s.recording {
            let rec = r.recorder
            var state = "state: \(r.state) (recording \(r.id))"
            if let why = r.pauseReason { state += ", paused: \(why)" }
            lines.append(state)
            lines.append(String(format: "recorded: %.1f s, paused: %.1f s", rec.recordedSeconds, rec.pausedSeconds))
            let c = rec.capture
            lines.append(String(format: "capture: %dx%d at %.1f fps, %lld frames, %lld dropped, audio: %@", c.width, c.height, c.fps,
                                c.framesCaptured, c.framesDropped, c.audioTracks.isEmpty ? "none" : c.audioTracks.joined(separator: ", ")))
            lines.append("video encoders: \(rec.videoEncoders)" + (rec.audioEncoders.map { ", audio encoders: \($0)" } ?? ""))
            if let d = c.damage { lines.append(DamageStatusLine.text(d)) }
            if let muted = c.audioMuted {  // the live switches (recordctl mic / app-audio)
                var parts: [String] = []
                if c.audioTracks.contains("audioMic") { parts.append("mic " + (muted.contains("audioMic") ? "off" : "on")) }
                if c.audioTracks.contains("audioApp") { parts.append("app audio " + (muted.contains("audioApp") ? "off" : "on")) }
                if !parts.isEmpty { lines.append("audio switches: " + parts.joined(separator: ", ")) }
            }
            if let camera = c.camera {  // the live camera switch (recordctl camera)
                var details = c.cameraFormat.map { [$0] } ?? []
                if let skipped = c.cameraSkipped, skipped > 0 {
                    details.append("\(skipped) picture\(skipped == 1 ? "" : "s") skipped" + (c.cameraSkipReason.map { ", last: \($0)" } ?? ""))
                }
                lines.append("camera: \(camera) \(c.cameraEnabled == false ? "off" : "on")" + (c.cameraLost.map { ", lost: \($0)" } ?? "")
                             + (details.isEmpty ? "" : " (\(details.joined(separator: "; ")))"))
            }
            if !c.audioOffsetMs.isEmpty {
                lines.append("a/v offset: " + c.audioOffsetMs.keys.sorted().map { String(format: "%@ %+.1f ms", $0, c.audioOffsetMs[$0]!) }.joined(separator: ", "))
            }
            for h in rec.handlers {
                let st = h.statistics
                var line = "handler \(h.name): \(h.state.rawValue), delivered \(st.delivered), dropped \(st.droppedVideo), queue max \(st.queueHighWater), \(st.bytesDelivered) bytes"
                for key in h.serviceInfo.keys.sorted() { line += ", \(key) \(h.serviceInfo[key]!)" }
                if let e = h.error { line += ", error: \(e)" }
                lines.append(line)
            }
            for w in rec.warnings { lines.append("warning: \(w)") }
        } else {
            lines.append("state: idle")
            if let a = s.availability {
                lines.append(a.reason)
                lines.append("display: \(a.display.reachable ? "reachable" : "unreachable"): \(a.display.reason)")
                lines.append("audio: \(a.audio.reachable ? "reachable" : "unreachable"): \(a.audio.reason)")
            }
        }
        if let last = s.last {
            lines.append("last: \(last.id) \(last.state)\(last.reason.map { " (\($0))" } ?? "")" + (last.outputs.isEmpty ? "" : ": " + last.outputs.joined(separator: ", ")))
        }
        for e in s.last?.errors ?? [] { lines.append("last error: \(e)") }
        for r in s.recovered {
            lines.append(r.path.isEmpty ? "recovered: \(r.id): nothing to recover (\(r.nothing ?? "no media reached the file"))" : "recovered: \(r.id) into \(r.path)")
        }
        return lines.joined(separator: "\n")
    }

    /// One event as a line.
    static func line(_ e: ServiceEvent) -> String {
        var parts = [e.at, e.kind]
        if let id = e.recordingId { parts.append(id) }
        if let state = e.state { parts.append(state) }
        if let time = e.time { parts.append(String(format: "time=%.3f", time)) }  // broadcast seconds (markers, mic switches)
        if let h = e.handler { parts.append("handler=\(h)") }
        if let path = e.path { parts.append("path=\(path)") }
        parts.append("reason=\(e.reason)")
        return parts.joined(separator: " ")
    }
}
