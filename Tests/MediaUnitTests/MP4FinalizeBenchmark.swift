import Foundation
@testable import RecordKitMedia
import XCTest

/// Not a CI test: times finalizing the fragmented MP4s named in `RK_FINALIZE_BENCH` (paths
/// separated by `:`), in place (``MP4IndexAppender``) and, for contrast, as `stop` did before
/// (``Remuxer`` with `+faststart` into a new file, which is then removed). Each input is first
/// copied (`cp --reflink=auto`) so it stays fragmented. Prints one line per file
/// (docs/BENCHMARKS.md). Without the variable it is skipped.
final class MP4FinalizeBenchmark: XCTestCase {
    func testFinalizeTimes() throws {
        guard let list = ProcessInfo.processInfo.environment["RK_FINALIZE_BENCH"], !list.isEmpty else {
            throw XCTSkip("set RK_FINALIZE_BENCH=/path/a.mp4:/path/b.mp4 to time finalizing them")
        }
        for input in list.split(separator: ":").map(String.init) {
            let work = input + ".bench.mp4"
            let remuxed = input + ".remuxed.mp4"
            defer { unlink(work); unlink(remuxed) }
            let copy = Process()
            copy.executableURL = URL(fileURLWithPath: "/bin/cp")
            copy.arguments = ["--reflink=auto", input, work]
            try copy.run()
            copy.waitUntilExit()
            let size = try FileManager.default.attributesOfItem(atPath: work)[.size] as? Int ?? 0
            sync()

            var start = Date()
            let outcome = try MP4IndexAppender.finalize(work, chapters: [])
            let inPlace = Date().timeIntervalSince(start)
            let grown = (try FileManager.default.attributesOfItem(atPath: work)[.size] as? Int ?? 0) - size

            start = Date()
            try Remuxer.remux(from: input, to: remuxed, container: "mp4", options: ["movflags": "+faststart"])
            let remux = Date().timeIntervalSince(start)
            print(String(format: "finalize-bench %@: %.1f MB, %d fragments, %d samples: in place %.3f s (index %d bytes, file grew %d bytes); "
                         + "remux +faststart %.2f s (a second file of %.1f MB)",
                         (input as NSString).lastPathComponent, Double(size) / 1e6, outcome.fragments, outcome.samples, inPlace,
                         outcome.indexBytes, grown, remux,
                         Double((try? FileManager.default.attributesOfItem(atPath: remuxed)[.size] as? Int) ?? 0) / 1e6))
        }
    }
}
