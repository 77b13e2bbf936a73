import Foundation
import Glibc
import RecordKitMedia
import XCTest

/// Not a CI test: the CPU time ``MJPEGDecoder`` spends on one camera picture (JPEG end found,
/// decoded, converted to BGR0), as an MJPEG camera's PipeWire thread spends it: ffmpeg's
/// testsrc2 as one yuvj422p JPEG (UVC cameras' sampling) at 1280x720 and 1920x1080, decoded
/// 100 times each on one thread, timed by that thread's CPU clock. Prints one line per size
/// (docs/BENCHMARKS.md). Skipped unless `RK_MJPEG_BENCH=1`.
final class MJPEGDecodeBenchmark: XCTestCase {
    func testDecodeCostPerPicture() throws {
        guard ProcessInfo.processInfo.environment["RK_MJPEG_BENCH"] == "1" else {
            throw XCTSkip("set RK_MJPEG_BENCH=1 to time decoding camera JPEGs")
        }
        for size in ["1280x720", "1920x1080"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size)", "-frames:v", "1",
                                 "-pix_fmt", "yuvj422p", "-q:v", "3", "-f", "mjpeg", "-"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let decoder = try MJPEGDecoder()
            var start = timespec(), end = timespec()
            let count = 100
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
            for _ in 0..<count {
                let failure = data.withUnsafeBytes { decoder.decode($0) { _, _, _, _ in } }
                XCTAssertNil(failure)
            }
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
            let ms = (Double(end.tv_sec - start.tv_sec) * 1e3 + Double(end.tv_nsec - start.tv_nsec) / 1e6) / Double(count)
            print(String(format: "mjpeg-bench %@ (%d bytes): %.2f ms CPU per picture", size, data.count, ms))
        }
    }
}
