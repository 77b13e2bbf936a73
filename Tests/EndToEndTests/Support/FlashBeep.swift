import Foundation
import XCTest

/// `rk-flashbeep`, the A/V sync stimulus: a window that flashes exactly when a beep becomes
/// audible (it compensates PulseAudio's playback latency), and the offsets between the two in a
/// recording.
enum FlashBeep {
    /// Starts `rk-flashbeep` as a 640x360 window at (200, 200) flashing and beeping into `app_sink`
    /// every 0.7 s; waits until its window is up and settled. The test ends it at teardown.
    static func start(in test: EndToEndTestCase) throws -> RunningProcess {
        let program = URL(fileURLWithPath: try test.rig.recordctlPath()).deletingLastPathComponent()
            .appendingPathComponent("rk-flashbeep").path
        let flash = try RunningProcess(program, ["--size", "640x360", "--position", "200,200", "--every", "0.7", "--sink", "app_sink"],
                                       environment: test.rig.environment)
        test.addTeardownBlock { flash.terminate(grace: 1) }
        XCTAssertNotNil(flash.waitForLine(timeout: 10) { $0.hasPrefix("0x") }, "flash window up")
        Thread.sleep(forTimeInterval: 1)
        return flash
    }

    /// The region `start` puts the window on, for `--region`.
    static let region = "640x360+200+200"

    /// Audio minus video, in seconds, for each flash onset that has a beep onset within `window` s.
    static func offsets(flashes: [Double], beeps: [Double], within window: Double) -> [Double] {
        flashes.compactMap { f in
            guard let b = beeps.min(by: { abs($0 - f) < abs($1 - f) }), abs(b - f) < window else { return nil }
            return b - f
        }
    }

    /// Asserts at least `minimumPairs` offsets, a mean within `meanWithin` s and every pair
    /// within `eachWithin` s, and prints the summary line under `label`.
    static func assertInSync(_ offsets: [Double], minimumPairs: Int, meanWithin: Double, eachWithin: Double, label: String,
                             pairsFound: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThanOrEqual(offsets.count, minimumPairs, "enough flash/beep pairs to measure (\(pairsFound))", file: file, line: line)
        let mean = offsets.reduce(0, +) / Double(max(offsets.count, 1))
        print(String(format: "%@: A/V offset over %d pairs: mean %.1f ms, worst %.1f ms (audio minus video)",
                     label, offsets.count, mean * 1000, (offsets.map(abs).max() ?? 0) * 1000))
        XCTAssertLessThanOrEqual(abs(mean), meanWithin, "mean A/V offset", file: file, line: line)
        for o in offsets { XCTAssertLessThanOrEqual(abs(o), eachWithin, "A/V offset of one pair", file: file, line: line) }
    }
}
