import Foundation
import RecordKit
import RecordKitBuiltins
import RecordKitCapture
import RecordKitExtensions
import RecordKitPipeline
@testable import FileUploadExtension
import MediaTestSupport
import XCTest

/// Split files at the library level: the `split` action through ``Recorder`` with no
/// working directory (a foreground recording: the first part is renamed `-001` when the split
/// comes), markers landing in the part they fall in, and the naming and policy rules. Real
/// recordings on the rig's Xvfb and PulseAudio, read back with ffprobe.
final class SplitFileLibraryTests: XCTestCase {
    private let region = ScreenCaptureConfiguration(display: nil, target: .region(PixelRect(x: 0, y: 0, width: 320, height: 240)),
                                                    framesPerSecond: 30, showsCursor: true)

    /// Part names sort beside the destination, numbered from 001; the working files likewise.
    func testPartNames() {
        XCTAssertEqual(PartNaming.path(for: "/v/talk.mp4", part: 1), "/v/talk-001.mp4")
        XCTAssertEqual(PartNaming.path(for: "/v/talk.mp4", part: 12), "/v/talk-012.mp4")
        XCTAssertEqual(PartNaming.path(for: "/v/my.talk.mkv", part: 1000), "/v/my.talk-1000.mkv")
        XCTAssertEqual(PartNaming.path(for: "/v.d/talk", part: 2), "/v.d/talk-002")
        XCTAssertEqual(PartNaming.path(for: "/v/.hidden", part: 2), "/v/.hidden-002")
        XCTAssertEqual(PartNaming.workingFile(in: "/w", part: 1, fileExtension: "mp4"), "/w/recording.mp4")
        XCTAssertEqual(PartNaming.workingFile(in: "/w", part: 3, fileExtension: "mkv"), "/w/recording-003.mkv")
    }

    /// `splitEvery` and `splitSize` are checked, and a key frame up to 50 ms early counts.
    func testSplitPolicyFromSetup() throws {
        let policy = try SplitPolicy(setup: SetupInfo(["splitEvery": "4", "splitSize": "0.5"]))
        XCTAssertEqual(policy.everySeconds, 4)
        XCTAssertEqual(policy.sizeBytes, 500_000)
        XCTAssertTrue(policy.isDue(originNs: 1_000_000_000, ptsNs: 4_960_000_000, bytes: 0))
        XCTAssertFalse(policy.isDue(originNs: 1_000_000_000, ptsNs: 4_900_000_000, bytes: 0))
        XCTAssertTrue(policy.isDue(originNs: 0, ptsNs: 1, bytes: 500_000))
        XCTAssertEqual(try SplitPolicy(setup: SetupInfo([:])), SplitPolicy())
        for bad in [["splitEvery": "0.5"], ["splitEvery": "soon"], ["splitSize": "0"], ["splitSize": "-3"]] {
            XCTAssertThrowsError(try SplitPolicy(setup: SetupInfo(bad))) { error in
                XCTAssertEqual((error as? BroadcastError)?.kind, .invalidSetup, "\(bad)")
            }
        }
    }

    /// Without a working directory: `split` renames the first part to `-001` (a plain MP4 with
    /// its index last), the second is written as `-002` and finalized in place; a marker made
    /// before the split is a chapter of the first part only, one made after it of the second,
    /// at its time in that part. The action answers with the closed part's path.
    func testSplitWithoutAWorkingDirectoryAndMarkersInTheirParts() throws {
        let env = ProcessInfo.processInfo.environment
        guard env["DISPLAY"] != nil, env["PULSE_SERVER"] != nil else {
            throw NSError(domain: "SplitFileLibraryTests", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "DISPLAY and PULSE_SERVER must point at the test rig: run scripts/test.sh (or source rig-run/env)"])
        }
        let root = NSTemporaryDirectory() + "rk-split-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/fg.mp4"
        let registrations = try BuiltinExtensions.catalog(extensionsDirectories: []).registrations(for: [
            ExtensionRequest(name: "file", setup: ["path": file]),
        ])
        let recorder = Recorder(configuration: RecordingConfiguration(screen: region), handlers: registrations)
        try recorder.start()
        XCTAssertTrue(recorder.waitForFirstFrame(timeout: 3))
        Thread.sleep(forTimeInterval: 1.5)
        let before = try recorder.mark(title: "Before")
        Thread.sleep(forTimeInterval: 1.5)
        let answers = try recorder.perform(action: FileUploadHandler.splitAction, arguments: [:], timeout: 60)
        XCTAssertEqual(answers.count, 1)
        let answer = try XCTUnwrap(try answers.first?.result.get())
        XCTAssertEqual(answer["path"], root + "/fg-001.mp4", "the answer names the closed part")
        XCTAssertEqual(answer["next"], root + "/fg-002.mp4")
        let cut = try XCTUnwrap(Double(answer["seconds"] ?? ""), "the answer gives the part's length")
        Thread.sleep(forTimeInterval: 1.0)
        let after = try recorder.mark(title: "After")
        Thread.sleep(forTimeInterval: 1.5)
        let snapshots = recorder.stop()
        for s in snapshots { XCTAssertNil(s.error, "\(s.name): \(s.error ?? "")") }
        XCTAssertEqual(snapshots.first?.serviceInfo["path"], root + "/fg-002.mp4", "the handler reports the part it wrote last")

        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root).sorted(), ["fg-001.mp4", "fg-002.mp4"],
                       "two parts, no unsplit name, no temporary file")
        let first = try FFprobeChapters.read(root + "/fg-001.mp4")
        XCTAssertEqual(first.map(\.title), ["Start", "Before"])
        XCTAssertEqual(first.last?.start ?? -1, before.time.seconds, accuracy: 1.0 / 30 + 0.002, "the first part's chapter at its mark")
        let second = try FFprobeChapters.read(root + "/fg-002.mp4")
        XCTAssertEqual(second.map(\.title), ["Start", "After"])
        XCTAssertEqual(second.last?.start ?? -1, after.time.seconds - cut, accuracy: 1.0 / 30 + 0.002,
                       "the second part's chapter at its mark, on the part's own timeline")
        // Plain MP4s, finalized in place: the fragments became one mdat, the index is appended.
        for part in ["fg-001.mp4", "fg-002.mp4"] {
            XCTAssertEqual(try MediaProbe.topLevelBoxes(root + "/" + part), ["ftyp", "mdat", "moov"], "\(part): plain, index last")
        }
    }
}
