import Foundation
import XCTest

/// A recording's threads are set at start and stay the same until stop, whatever the load
/// (docs/ARCHITECTURE.md, "Threads"): encoders, conversion, handlers and timers run on dedicated
/// named threads (`SerialThread`, `RepeatingThread`), not on libdispatch's pool, whose workers
/// came and went with the load (21-29 threads in an hour's soak).
final class RecordingThreadsTests: EndToEndTestCase {
    /// The threads of a live process: thread id → kernel name.
    private func threads(of pid: pid_t) -> [String: String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var names: [String: String] = [:]
        for tid in tasks {
            if let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8) {
                names[tid] = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return names
    }

    /// `recordctl record` of moving content with a file, RTMP and a replay buffer, while a busy
    /// loop loads the CPU for part of it: once it records (its encoder's thread is up, within
    /// 60 s on a loaded machine) and 5 s of start-up have passed, the process has the very same
    /// threads (ids) in every sample for 8 s, each stage's thread named after it. SIGINT stops it.
    func testARecordingKeepsTheSameNamedThreadsUnderLoad() throws {
        let rtmp = try XCTUnwrap(rig.rtmpURL, "the rig's RTMP server")
        try movingPattern()
        let record = try Recordctl(rig).start(["--region", "320x240+0+0", "--output", path("threads.mp4"),
                                               "--rtmp", "\(rtmp)/testkey-threads-\(getpid())", "--replay-buffer", "60"])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !threads(of: record.pid).values.contains(where: { $0.hasPrefix("rk-venc-") }) {
            Thread.sleep(forTimeInterval: 0.2)
        }
        Thread.sleep(forTimeInterval: 5)
        let load = try RunningProcess("timeout", ["5", "sh", "-c", "while :; do :; done"], environment: rig.environment)
        var samples: [[String: String]] = []
        for _ in 0..<16 {
            samples.append(threads(of: record.pid))
            Thread.sleep(forTimeInterval: 0.5)
        }
        _ = load.wait(timeout: 30)
        record.send(SIGINT)
        let result = record.wait(timeout: 90)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        XCTAssertEqual(try FFprobe.probe(path("threads.mp4")).video.count, 1, "the recording plays")

        let first = try XCTUnwrap(samples.first)
        verbose("threads: \(first.values.sorted())")
        XCTAssertGreaterThan(first.count, 10, "\(first)")
        for (index, sample) in samples.enumerated() where sample != first {
            let came = sample.filter { first[$0.key] == nil }.values.sorted()
            let went = first.filter { sample[$0.key] == nil }.values.sorted()
            XCTFail("sample \(index) (\(Double(index) / 2) s after the first): threads came \(came), went \(went)")
        }
        let names = Set(first.values)
        for expected in ["rk-screen", "rk-pulse", "rk-pulse-ping", "rk-audio-fill", "rk-malloc-trim",
                         "rk-out-file", "rk-out-rtmp", "rk-rtmp-send", "rk-out-replay-b", "rk-x-watchdog"] {
            XCTAssertTrue(names.contains(expected), "a thread named \(expected): \(names.sorted())")
        }
        for prefix in ["rk-venc-", "rk-vcvt-", "rk-aenc-app-", "rk-aenc-mic-"] {
            XCTAssertTrue(names.contains { $0.hasPrefix(prefix) }, "a thread named \(prefix)N: \(names.sorted())")
        }
    }
}
