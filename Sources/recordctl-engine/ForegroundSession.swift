import Dispatch
import Foundation
import Glibc
import RecordCtlSupport
import RecordKitBuiltins
import RecordKitService

/// Runs one recording in this process until a duration passes, SIGINT/SIGTERM arrives, or the
/// recording ends by itself; shows a live status line on a terminal; prints each handler's result.
struct ForegroundSession {
    let arguments: StartArguments

    /// Records and returns the exit code.
    func run(duration: Double?) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let session: RecordingSession
        let outcome = ForegroundOutcome()
        let uploads = ForegroundUploads(options: arguments.upload)
        // `--on-saved` commands (docs/recordctl/hooks.md): a failing one is said on stderr, never
        // changes the recording or the exit code.
        let hooks = SavedFileHooks(commands: arguments.onSaved, timeout: arguments.hookTimeout, recordingId: "record-\(getpid())") { report in
            if !report.outcome.succeeded { Console.error("on-saved hook for \(report.path) \(report.outcome.summary)") }
        }
        do throws(ControlError) {
            session = try RecordingSession(arguments: arguments, builtins: BuiltinExtensions.all) { event in
                if event.handler != nil || event.isWarning || event.state == .failed { Console.error(event.reason) }
                // A file part finalized after a split (docs/recordctl/split.md): its path on stdout now.
                if event.kind == "file-part", let path = event.path {
                    Console.out(path)
                    hooks.saved(path: path, kind: .part)
                    uploads.queue(path)
                }
                outcome.note(event)
                if event.state.isTerminal { done.signal() }
            }
        } catch {
            Console.error(error.message)
            return ExitCodes.code(for: error)
        }
        // Signals are handled as events, not by the default action, from before start on.
        let signalQueue = DispatchQueue(label: "recordctl.signals")
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        do throws(ControlError) { try session.start() } catch {
            // The recorder's `failed` event already printed why (once).
            return ExitCodes.code(for: error)
        }
        // `recordctl mic|app-audio|camera off|on` from another terminal reach this recording.
        let switches = ForegroundSwitches(session: session)
        defer { switches?.stop() }
        let startWarnings = session.status.warnings
        for warning in startWarnings { Console.error(warning) }
        for url in session.status.handlers.compactMap({ $0.serviceInfo["url"] }) where url.hasPrefix("http://127.0.0.1:") {
            Console.error("preview: \(url)")
        }

        let live = Console.stderrIsTerminal ? LiveStatusLine(session: session) : nil
        live?.start()
        if let duration {
            // --duration counts recorded time (broadcast time, from the first frame's tick): wait
            // until the recorder's own clock says so, not for a timer started a little later.
            // Until a first picture comes (a Wayland compositor sends none while its screen stays
            // still), it counts the time since the start, so the recording still ends.
            let startedAt = DispatchTime.now()
            _ = session.waitForFirstFrame(timeout: 5)
            while true {
                let recorded = session.status.recordedSeconds
                let waited = Double(DispatchTime.now().uptimeNanoseconds - startedAt.uptimeNanoseconds) / 1e9
                let remaining = duration - (recorded > 0 ? recorded : waited)
                if remaining <= 0 || done.wait(timeout: .now() + min(remaining, 0.5)) == .success { break }
            }
        } else {
            done.wait()
        }
        live?.stop()
        let reports = session.stop()
        sources.forEach { $0.cancel() }
        let summary = session.status
        Console.error(String(format: "recorded %.2f s: %lld frames captured, %lld dropped, %lld late ticks",
                             summary.recordedSeconds, summary.capture.framesCaptured, summary.capture.framesDropped,
                             summary.capture.lateTicks))
        // Warnings raised while recording that no event printed yet (an encoder overload), once each.
        for warning in summary.warnings.dropFirst(startWarnings.count) where !outcome.wasPrinted(warning) { Console.error(warning) }

        var failed = session.state == .failed
        for report in reports {
            if let path = report.serviceInfo["path"], report.state != .failed || FileManager.default.fileExists(atPath: path) {
                Console.out(path)
                if report.state != .failed {
                    hooks.saved(path: path, kind: .recording)
                    uploads.queue(path)
                }
            }
            if report.state == .failed {
                Console.error("\(report.name): \(report.error ?? "failed")")
                failed = true
            }
        }
        uploads.finish()
        if !hooks.isEmpty {
            let bound = (arguments.hookTimeout ?? HookDefaults.timeoutSeconds) + 3
            hooks.waitUntilIdle(timeout: bound * Double(max(1, arguments.onSaved.count)) * Double(max(1, reports.count)) + 5)
        }
        return failed ? ExitCodes.failed : outcome.exitCode
    }
}
