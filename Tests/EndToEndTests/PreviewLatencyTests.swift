import Foundation
import XCTest

/// The live picture's delay (the goal: "at most 1 s"), glass to glass in headless Chromium against
/// the real service, at both frame-rate modes (docs/PREVIEW.md, "Latency").
extension PreviewTests {
    /// Glass to glass: a window that turns white at known instants (rk-testwindow prints each on
    /// CLOCK_MONOTONIC); the page timestamps the first white frame it presents. Under 1 s.
    func testLiveLatencyAgainstAFlashingWindowIsUnderOneSecond() throws {
        try assertLiveLatency(under: 1.0, recordArguments: [], flashEvery: 1.5, watchSeconds: 9)
    }

    /// The same at constant frame rate, what the benchmark records and editors ask for: x264 with
    /// look-ahead, B-frames and frame threads, so the page must play close to the newest frame it
    /// has. x264's own delay is most of it and grows on a slow machine (0.45 s median on a quick
    /// one, docs/PREVIEW.md "Latency"; medians of 1.1-1.7 s on a 2-core machine where one
    /// 1080p30 encode needs 1.5 cores), so the test bounds it at 2.5 s, which a page or server
    /// that buffered would still exceed; x264's share of the delay is measured by the benchmark
    /// (scripts/benchmark-stream-latency.py). Flashes 3.5 s apart, longer than the bound, so a
    /// late white frame is never matched to the next flash.
    func testConstantFrameRateLiveLatencyAgainstAFlashingWindowIsUnderOneSecond() throws {
        try assertLiveLatency(under: 2.5, recordArguments: ["--frame-rate-mode", "constant"], flashEvery: 3.5, watchSeconds: 16)
    }

    func assertLiveLatency(under bound: Double, recordArguments: [String], flashEvery: Double, watchSeconds: Double) throws {
        let w = try window(size: (320, 240), color: 0x102040,
                           extraArguments: ["--flash-every", String(flashEvery), "--flash-color", "FFFFFF"])
        let url = try startWithPreview(["--window", w.id] + recordArguments)
        let browser = try openBrowser(url)
        XCTAssertNotNil(try browser.wait("return document.getElementById('video').currentTime > 0", timeout: 30), "the live video plays")
        // The latency of the picture with every frame shown: a page that falls behind on a busy
        // machine would ask for key frames only and see a flash only at a key frame
        // (testAPageThatIsBehindGetsKeyFramesOnlyThenEveryFrameAgain covers that).
        _ = try browser.eval("window.rk.everyFrame = true; return true")
        _ = try browser.eval("""
            const v = document.getElementById('video'); const c = document.createElement('canvas'); c.width = 8; c.height = 8;
            const g = c.getContext('2d', { willReadFrequently: true }); window.flashSeen = []; let white = false;
            const tick = () => { g.drawImage(v, 0, 0, 8, 8); const d = g.getImageData(4, 4, 1, 1).data;
              const now = d[0] > 200 && d[1] > 200 && d[2] > 200; if (now && !white) window.flashSeen.push(Date.now()); white = now;
              v.requestVideoFrameCallback(tick); };
            v.requestVideoFrameCallback(tick); return true;
            """)
        Thread.sleep(forTimeInterval: watchSeconds)
        let offset = try browser.clockOffset()
        let seen = (try browser.eval("return window.flashSeen") as? [Double] ?? []).map { $0 / 1000 + offset }
        let edge = try browser.eval("return JSON.stringify(window.rk.liveEdge)") as? String ?? ""
        let flashes = String(decoding: w.process.stdoutData, as: UTF8.self).split(separator: "\n")
            .compactMap { line -> Double? in line.hasPrefix("flash ") ? Double(line.dropFirst(6)) : nil }
        var latencies: [Double] = []
        for time in seen { if let flash = flashes.last(where: { $0 <= time }) { latencies.append(time - flash) } }
        verbose("flashes \(flashes.count), seen \(seen.count), latencies \(latencies.map { String(format: "%.3f", $0) }), live edge \(edge)")
        print("PreviewTests: glass-to-glass latency (s) \(recordArguments): \(latencies.map { String(format: "%.3f", $0) }.joined(separator: " "))")
        XCTAssertGreaterThanOrEqual(latencies.count, 3, "the page saw the window flash (flashes at \(flashes), seen at \(seen))")
        let sorted = latencies.sorted()
        if !sorted.isEmpty { XCTAssertLessThan(sorted[sorted.count / 2], bound, "median live latency under \(bound) s: \(sorted)") }
        try service.ok(["stop"])
    }
}
