import Dispatch
import Foundation
import Glibc
import RecordKit
import RecordKitPipeline

/// Runs one recording in this process until a duration passes, SIGINT/SIGTERM arrives, or the
/// recording ends by itself; shows a live status line on a terminal; prints each handler's result.
struct ForegroundSession {
    let configuration: RecordingConfiguration
    let handlers: [HandlerRegistration]

    /// Records and returns the exit code.
    func run(duration: Double?) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let recorder = Recorder(configuration: configuration, handlers: handlers) { event in
            if event.handler != nil { Console.error(event.reason) }
            if event.state.isTerminal { done.signal() }
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
        do { try recorder.start() } catch {
            Console.error(error.message)
            return ExitCodes.code(for: error)
        }
        let startWarnings = recorder.status.warnings
        for warning in startWarnings { Console.error(warning) }

        let live = Console.stderrIsTerminal ? LiveStatusLine(recorder: recorder) : nil
        live?.start()
        if let duration {
            // --duration counts recorded time (broadcast time, from the first frame's tick): wait
            // until the recorder's own clock says so, not for a timer started a little later.
            _ = recorder.waitForFirstFrame(timeout: 5)
            while true {
                let remaining = duration - recorder.status.recordedSeconds
                if remaining <= 0 || done.wait(timeout: .now() + min(remaining, 0.5)) == .success { break }
            }
        } else {
            done.wait()
        }
        live?.stop()
        let snapshots = recorder.stop()
        sources.forEach { $0.cancel() }
        let summary = recorder.status
        Console.error(String(format: "recorded %.2f s: %lld frames captured, %lld dropped, %lld late ticks",
                             summary.recordedSeconds, summary.capture.framesCaptured, summary.capture.framesDropped,
                             summary.capture.lateTicks))
        for warning in summary.warnings.dropFirst(startWarnings.count) { Console.error(warning) }  // e.g. an encoder overload, told once

        var failed = recorder.state == .failed
        for snapshot in snapshots {
            if let path = snapshot.serviceInfo["path"], snapshot.state != .failed || FileManager.default.fileExists(atPath: path) {
                Console.out(path)
            }
            if snapshot.state == .failed {
                Console.error("\(snapshot.name): \(snapshot.error ?? "failed")")
                failed = true
            }
        }
        return failed ? ExitCodes.failed : 0
    }
}
