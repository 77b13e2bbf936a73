import Foundation
import RecordKitCapture
import RecordKitConfig
import RecordKitControl
import RecordKitService

/// The `[hotkeys]` of the config file on X11: each chord grabbed on the root window of the
/// service's display, each press a request of the service's one API (`save-replay`, `start` or
/// `stop`, `pause` or `resume`, `mark`), and a desktop notification that says what happened and
/// where the file went. On Wayland no client may grab keys globally: docs/recordctl/hotkeys.md.
///
/// Threading: presses arrive on the grabber's thread and are handled on a serial queue, so a
/// press never waits for X and a slow `stop` delays only the next press.
package final class HotkeySurface: Sendable {
    private let grabber: HotkeyGrabber

    /// Grabs the chords of `settings` on `display`; nil (and a log line) when there are none or the display cannot be opened.
    package static func start(settings: HotkeySettings, display: String?, control: LocalControlClient, notifier: DesktopNotifier,
                              startArguments: @escaping @Sendable () -> StartArguments, log: @escaping @Sendable (String) -> Void) -> HotkeySurface? {
        var actions: [String] = []
        var chords: [HotkeyChord] = []
        for action in HotkeySettings.actions {
            guard let text = settings.bindings[action] else { continue }
            guard let chord = HotkeyChord(text) else { log("hotkeys: \(action) = \"\(text)\" is not a chord like Super+Alt+R; ignored"); continue }
            actions.append(action)
            chords.append(chord)
        }
        guard !chords.isEmpty else { return nil }
        let bound = actions
        let queue = DispatchQueue(label: "recordkit.hotkeys.actions")
        do throws(CaptureError) {
            let (grabber, failures) = try HotkeyGrabber.start(displayName: display, chords: chords) { index in
                let action = bound[index]
                queue.async { perform(action, control: control, notifier: notifier, startArguments: startArguments, log: log) }
            }
            for f in failures { log("hotkeys: \(f)") }
            log("hotkeys: grabbed " + zip(actions, chords).map { "\($0) = \($1)" }.joined(separator: ", "))
            return HotkeySurface(grabber: grabber)
        } catch {
            log("hotkeys: \(error.message)")
            return nil
        }
    }

    private init(grabber: HotkeyGrabber) { self.grabber = grabber }

    /// Releases the keys.
    package func stop() { grabber.stop() }

    /// One press: the request, then a notification saying what it did (or why not).
    static func perform(_ action: String, control: LocalControlClient, notifier: DesktopNotifier,
                        startArguments: () -> StartArguments, log: (String) -> Void) {
        func ask(_ cmd: ControlCommand, args: StartArguments? = nil, options: CommandOptions? = nil) -> ControlReply {
            control.request(ControlRequest(cmd: cmd, id: "hotkey", args: args, options: options))
        }
        let recording = ask(.status).result?.status?.recording
        let state = recording?.state
        let reply: ControlReply
        let summary: String
        switch action {
        case "save-replay":
            reply = ask(.saveReplay, options: CommandOptions())
            summary = "Replay saved"
        case "toggle-record":
            if state == nil {
                reply = ask(.start, args: startArguments())
                summary = "Recording started"
            } else {
                reply = ask(.stop)
                summary = "Recording saved"
            }
        case "toggle-pause":
            reply = ask(state == "paused" ? .resume : .pause)
            summary = state == "paused" ? "Recording resumed" : "Recording paused"
        case "mark":
            reply = ask(.mark, options: CommandOptions())
            summary = "Chapter marked"
        default:  // mic-toggle: the live microphone switch (recordctl mic off|on)
            let micOff = recording?.recorder.capture.audioMuted?.contains("audioMic") ?? false
            var options = CommandOptions()
            options.track = "mic"
            options.enabled = micOff
            reply = ask(.audioSwitch, options: options)
            summary = micOff ? "Microphone on" : "Microphone off"
        }
        if reply.ok {
            let r = reply.result
            let body = r?.path ?? r?.outputs?.joined(separator: "\n") ?? r?.recordingId ?? r?.time.map { String(format: "at %.1f s", $0) } ?? ""
            log("hotkeys: \(action): \(summary.lowercased()) \(body)")
            notifier.notify(summary, body)
        } else {
            let message = reply.error?.message ?? "failed"
            log("hotkeys: \(action): \(message)")
            notifier.notify("RecordKit: \(action) failed", message)
        }
    }
}
