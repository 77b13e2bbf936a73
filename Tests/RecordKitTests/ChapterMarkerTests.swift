import Foundation
import RecordKit
import RecordKitBuiltins
import RecordKitCapture
import RecordKitExtensions
import RecordKitPipeline
import ExtensionTestSupport
import XCTest

/// Markers (docs/recordctl/mark.md): `Recorder.mark` reaches every handler through `broadcastAnnotated`, in
/// order with its samples; the file writes them as chapters (MP4 and Matroska), and an
/// out-of-process extension receives them. Real recordings on the rig's Xvfb and PulseAudio,
/// chapters read back with `ffprobe -show_chapters`.
final class ChapterMarkerTests: XCTestCase {
    private let region = ScreenCaptureConfiguration(display: nil, target: .region(PixelRect(x: 0, y: 0, width: 320, height: 240)),
                                                    framesPerSecond: 30, showsCursor: true)

    override func setUpWithError() throws {
        let env = ProcessInfo.processInfo.environment
        guard env["DISPLAY"] != nil, env["PULSE_SERVER"] != nil else {
            throw NSError(domain: "ChapterMarkerTests", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "DISPLAY and PULSE_SERVER must point at the test rig: run scripts/test.sh (or source rig-run/env)"])
        }
    }

    /// Three marks: the MP4 and the Matroska file carry them as chapters at their times (within
    /// one frame), titled as given ("Chapter N" when untitled); an extension receives the three
    /// annotations in order, among its samples, with the same times.
    func testThreeMarksBecomeChaptersInMP4AndMatroskaAndReachAnExtension() throws {
        let root = try ExtensionFixtures.temporaryDirectory(self)
        let encodedInput = #"{"video": {"format": "h264"}, "audioApp": {"format": "aac"}}"#
        try ExtensionFixtures.makeExtension(in: root, name: "listener", manifest: ExtensionFixtures.fixtureManifest(name: "listener", input: encodedInput),
                                            program: try ExtensionFixtures.fixtureBinary())
        let mp4 = root + "/marked.mp4", mkv = root + "/marked.mkv", log = root + "/listener.log"
        let registrations = try BuiltinExtensions.catalog(extensionsDirectories: [root]).registrations(for: [
            ExtensionRequest(name: "file", setup: ["path": mp4]),
            ExtensionRequest(name: "file", setup: ["path": mkv]),
            ExtensionRequest(name: "listener", setup: ["log": log]),
        ])
        let recorder = Recorder(configuration: RecordingConfiguration(screen: region), handlers: registrations)
        try recorder.start()
        XCTAssertTrue(recorder.waitForFirstFrame(timeout: 3))
        var marks: [BroadcastAnnotation] = []
        for title in ["Intro", "", "The bug"] {
            Thread.sleep(forTimeInterval: 1.2)
            marks.append(try recorder.mark(title: title))
        }
        Thread.sleep(forTimeInterval: 1.2)
        let snapshots = recorder.stop()
        for s in snapshots { XCTAssertNil(s.error, "\(s.name): \(s.error ?? "")") }
        XCTAssertEqual(marks.map(\.time), marks.map(\.time).sorted(), "marks in time order")

        let titles = ["Intro", "Chapter 2", "The bug"]
        let frame = 1.0 / 30 + 0.002
        let mkvChapters = try FFprobeChapters.read(mkv)
        XCTAssertEqual(mkvChapters.map(\.title), titles, "Matroska: the three markers")
        for (chapter, mark) in zip(mkvChapters, marks) {
            XCTAssertEqual(chapter.start, mark.time.seconds, accuracy: frame, "Matroska: \(chapter.title) at its mark")
        }
        // MP4 chapters cover the file from zero (QuickTime's chapter track): "Start" comes first.
        let mp4Chapters = try FFprobeChapters.read(mp4)
        XCTAssertEqual(mp4Chapters.map(\.title), ["Start"] + titles, "MP4: the three markers after the leading chapter")
        XCTAssertEqual(mp4Chapters.first?.start ?? -1, 0, accuracy: 0.001)
        for (chapter, mark) in zip(mp4Chapters.dropFirst(), marks) {
            XCTAssertEqual(chapter.start, mark.time.seconds, accuracy: frame, "MP4: \(chapter.title) at its mark")
        }

        let calls = try FixtureCallLog(path: log)
        XCTAssertEqual(calls.violations, [], "serial contract with annotations")
        let annotated = calls.lines.filter { $0.hasPrefix("enter annotated ") }
        XCTAssertEqual(annotated.count, 3, "the extension received three annotations: \(annotated)")
        let times = annotated.compactMap { Int64($0.split(separator: " ")[2]) }
        XCTAssertEqual(times, marks.map(\.time.nanoseconds), "in order, with their times")
        XCTAssertTrue(annotated.last?.hasSuffix(" The bug") ?? false, "with their titles: \(annotated)")
        let list = calls.calls
        let firstAnnotation = try XCTUnwrap(list.firstIndex(of: "annotated"))
        let lastAnnotation = try XCTUnwrap(list.lastIndex(of: "annotated"))
        XCTAssertTrue(list[..<firstAnnotation].contains("sample video"), "samples before the first annotation")
        XCTAssertTrue(list[(lastAnnotation + 1)...].contains("sample video"), "samples after the last annotation")
    }

    /// A mark outside a recording is refused, saying why.
    func testMarkOutsideARecordingIsRefused() throws {
        let recorder = Recorder(configuration: RecordingConfiguration(screen: region), handlers: [])
        XCTAssertThrowsError(try recorder.mark(title: "too early")) { error in
            XCTAssertEqual((error as? RecorderError)?.kind, .invalidState)
        }
    }
}
