import Foundation
import Glibc
@testable import RecordKit
@testable import RecordKitMedia
import MediaTestSupport
import RecordKitSupport
import XCTest

/// SVT-AV1 run as root gives its threads, and the thread that opened it, real-time priority
/// (SCHED_FIFO 99); every thread started afterwards inherited it, and in CI two load threads of
/// a later test starved the machine. After a video encoder opens, no thread of the process is
/// real-time, the opening thread included.
final class EncoderThreadPolicyTests: XCTestCase {
    func testNoThreadIsRealtimeAfterAnAV1EncoderOpensAndEncodes() throws {
        try XCTSkipUnless(geteuid() == 0, "SVT-AV1 asks for real-time priority only as root")
        var settings = VideoEncoderSettings.fileDefault
        settings.codec = .av1
        settings.preset = "ultrafast"
        let encoder = try VideoEncoder(settings: settings, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "policy")
        XCTAssertFalse(RealtimeThreads.isRealtime(0), "the thread that opened the encoder")
        XCTAssertEqual(realtimeThreads(), [], "threads of the process under SCHED_FIFO or SCHED_RR")
        // A thread started now (it inherits the opener's policy) is a normal one.
        let startedLater = OnAThread.run(timeout: 30) { RealtimeThreads.isRealtime(0) }
        XCTAssertEqual(startedLater, false, "a thread started after the encoder opened")
        let black = UnsafeMutableRawPointer.allocate(byteCount: 320 * 240 * 4, alignment: 64)
        defer { black.deallocate() }
        black.initializeMemory(as: UInt8.self, repeating: 0, count: 320 * 240 * 4)
        var packets = 0
        for pts in 0..<3 {
            try encoder.encode(bgr0: black, bytesPerRow: 320 * 4, width: 320, height: 240, pts: Int64(pts)) { _ in packets += 1 }
        }
        try encoder.finish { _ in packets += 1 }
        XCTAssertEqual(packets, 3, "every picture encoded")
        XCTAssertEqual(realtimeThreads(), [], "after encoding")
    }

    /// The ids of this process's threads that run under a real-time policy.
    private func realtimeThreads() -> [pid_t] {
        let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tids.compactMap { pid_t($0) }.filter { RealtimeThreads.isRealtime($0) }.sorted()
    }
}
