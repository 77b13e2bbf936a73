import Foundation
import XCTest

/// Frames the shared test machine lost before any output: `dropped` (capture's pool exhausted,
/// or an encoder a third of a second behind) and `lateTicks` (ticks a capture thread woken over
/// 100 ms late skipped). Tests that count a file's frames subtract them, bounded: they are the
/// 2 shared cores stalling, not what the test is about. -1 where a count was not reported.
struct MachineFrameLosses: CustomStringConvertible {
    let dropped: Int
    let lateTicks: Int

    /// Both counts (a missing one as 0).
    var total: Int { max(dropped, 0) + max(lateTicks, 0) }

    var description: String { "\(dropped) dropped, \(lateTicks) late ticks" }

    /// From the `capture` object of `recordctl status --json`'s recorder.
    init(capture: [String: Any]?) {
        dropped = (capture?["framesDropped"] as? NSNumber)?.intValue ?? -1
        lateTicks = (capture?["lateTicks"] as? NSNumber)?.intValue ?? -1
    }

    /// From `recordctl record`'s summary on stderr ("recorded 10.00 s: 300 frames captured,
    /// 0 dropped, 0 late ticks"), or nil when it printed none.
    init?(recordSummary stderr: String) {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("recordctl: recorded ") || $0.hasPrefix("recorded ") }) else {
            return nil
        }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count >= 2 else { return nil }
        dropped = numbers[numbers.count - 2]
        lateTicks = numbers[numbers.count - 1]
    }

    /// Asserts both counts were reported and stay within `maxDropped` and `maxLateTicks`.
    func assertBounded(dropped maxDropped: Int, lateTicks maxLateTicks: Int = 15, _ context: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue((0...maxDropped).contains(dropped), "capture kept up: \(context)", file: file, line: line)
        XCTAssertTrue((0...maxLateTicks).contains(lateTicks), "the capture thread was never late by long: \(context)", file: file, line: line)
    }
}
