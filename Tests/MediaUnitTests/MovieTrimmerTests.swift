import Foundation
@testable import RecordKitMedia
import MediaTestSupport
import XCTest

/// MovieTrimmer on movies FFmpeg makes here (testsrc2 with B-frames and a key frame every 2 s,
/// two AAC tracks, chapters), checked by decoding the output with ffmpeg. The trim of a real
/// recording is in EndToEndTests/TrimTests.swift.
final class MovieTrimmerTests: XCTestCase {
    private var scratch: MediaScratchDirectory!

    override func setUpWithError() throws { scratch = try MediaScratchDirectory() }
    override func tearDown() { scratch?.remove() }

    private func file(_ name: String) -> String { scratch.path + "/" + name }

    /// A 6 s 640x360 30 fps movie: key frames at 0, 2, 4 s (B-frames between), app and mic
    /// tones, and chapters A [0, 1), B [1, 3), C [3, 6) s.
    private func makeMovie(_ name: String, codec: [String] = ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "keyint=60:min-keyint=60:scenecut=0"]) throws -> String {
        let metadata = file("chapters.txt")
        try """
            ;FFMETADATA1
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=1000
            title=A
            [CHAPTER]
            TIMEBASE=1/1000
            START=1000
            END=3000
            title=B
            [CHAPTER]
            TIMEBASE=1/1000
            START=3000
            END=6000
            title=C

            """.write(toFile: metadata, atomically: true, encoding: .utf8)
        let out = file(name)
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", [
            "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=48000",
            "-f", "ffmetadata", "-i", metadata, "-map_chapters", "3", "-t", "6", "-map", "0:v", "-map", "1:a", "-map", "2:a",
            "-pix_fmt", "yuv420p"] + codec + ["-g", "60", "-c:a", "aac", "-b:a", "96k", out])
        XCTAssertEqual(code, 0, stderr)
        return out
    }

    /// `ffmpeg -v error` decoding every stream prints nothing.
    private func assertDecodesCleanly(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0", "-f", "null", "-"])
        XCTAssertEqual(code, 0, file: file, line: line)
        XCTAssertEqual(stderr, "", "decoding \(path) reports errors", file: file, line: line)
    }

    /// Per stream of `path`: (codec type, first pts, end of last packet) in seconds.
    private func spans(_ path: String) throws -> [(type: String, first: Double, end: Double, count: Int)] {
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts_time,duration_time",
                                                                  "-of", "csv=p=0", path])
        var result: [Int: (first: Double, end: Double, count: Int)] = [:]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let f = line.split(separator: ",").map(String.init)
            // FFmpeg 5.1's MP4 reader gives no duration (N/A) to the packets before the first
            // copied key frame although the file's stts lists them (checked): count them as 0.
            guard f.count >= 3, let index = Int(f[0]), let pts = Double(f[1]) else { continue }
            let duration = Double(f[2]) ?? 0
            let old = result[index] ?? (.infinity, -.infinity, 0)
            result[index] = (min(old.first, pts), max(old.end, pts + duration), old.count + 1)
        }
        let probe = try MediaProbe.probe(path)
        return result.keys.sorted().map { (probe.streams[$0].type, result[$0]!.first, result[$0]!.end, result[$0]!.count) }
    }

    /// The video stream's duration as the container states it (MP4: the sum of its stts).
    private func videoDuration(_ path: String) throws -> Double {
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration",
                                                                  "-of", "csv=p=0", path])
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The frame's grey pixels: frame `index` of `path` (presentation order).
    private func grey(_ path: String, frame index: Int) throws -> [UInt8] {
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-vf", "select=eq(n\\,\(index)),scale=160:90",
                                                                 "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        return [UInt8](data)
    }

    private func distance(_ a: [UInt8], _ b: [UInt8]) -> Double {
        zip(a, b).reduce(0.0) { $0 + Double((Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1))) } / Double(max(1, a.count))
    }

    func testCutMidGOPReencodesOnlyToTheNextKeyFrame() throws {
        let source = try makeMovie("source.mp4")
        let out = file("cut.mp4")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 1.5, end: 4.0, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.method, .smartCut, "\(report)")
        XCTAssertEqual(report.reencodedFrames, 15, "frames 45..<60, up to the key frame at 2 s: \(report)")
        XCTAssertEqual(report.reencodedTailFrames, 0, "4.0 s is a key frame: the end is closed")
        XCTAssertEqual(report.copiedVideoPackets, 60)
        XCTAssertEqual(report.audioTracks, 2)
        XCTAssertEqual(report.duration, 2.5, accuracy: 0.0001)
        XCTAssertEqual(report.firstFrameTime, 1.5, accuracy: 0.0001)
        try assertDecodesCleanly(out)
        let streams = try spans(out)
        XCTAssertEqual(streams.map(\.type), ["video", "audio", "audio"])
        XCTAssertEqual(streams[0].count, 75)
        XCTAssertEqual(streams[0].first, 0, accuracy: 0.0001)
        XCTAssertEqual(try videoDuration(out), 2.5, accuracy: 0.0001)
        for audio in streams.dropFirst() {
            // The AAC frame the cut falls in is kept with a negative start, trimmed by the edit list.
            XCTAssertLessThan(audio.first, 0.0001)
            XCTAssertGreaterThan(audio.first, -1024.0 / 48000, "the first AAC frame is the one the cut falls in")
            XCTAssertEqual(audio.end, 2.5, accuracy: 1024.0 / 48000, "audio ends with the video within one AAC frame")
        }
        let (_, starts, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time",
                                                                    "-of", "csv=p=0", out])
        XCTAssertEqual(String(decoding: starts, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0) }, [0, 0],
                       "each audio track starts at zero exactly (edit list)")
        // The first frame is the source's frame 45 (1.5 s), not a neighbour.
        let first = try grey(out, frame: 0)
        let d = try [44, 45, 46].map { distance(first, try grey(source, frame: $0)) }
        XCTAssertLessThan(d[1], d[0] / 4, "\(d)")
        XCTAssertLessThan(d[1], d[2] / 4, "\(d)")
        // One avcC record: the source's SPS/PPS and the re-encode's, under distinct ids.
        let input = try TrimInput(path: out)
        let sets = try XCTUnwrap(withExtendedLifetime(input) { AVCParameterSets(avcC: MovieTrimmer.extradata(of: input.video)) })
        XCTAssertEqual(sets.sequenceSets.count, 2)
        XCTAssertEqual(sets.pictureSets.count, 2)
        XCTAssertEqual(sets.usedIDs, [0, 1])
        // Trimming the trimmed file again: the sets no copied packet uses are dropped, so the
        // record stays at two pairs however often a file is re-trimmed.
        let again = file("again.mp4")
        let second = try MovieTrimmer.trim(input: URL(fileURLWithPath: out), start: 0.2, end: 2.2, output: URL(fileURLWithPath: again))
        XCTAssertEqual(second.method, .smartCut, "\(second)")
        try assertDecodesCleanly(again)
        let againInput = try TrimInput(path: again)  // owns the stream read below: keep it alive
        let againSets = try XCTUnwrap(withExtendedLifetime(againInput) { AVCParameterSets(avcC: MovieTrimmer.extradata(of: againInput.video)) })
        XCTAssertEqual(againSets.sequenceSets.count, 2, "\(againSets.usedIDs)")
        XCTAssertEqual(againSets.pictureSets.count, 2)
    }

    func testEndInsideBFramesReencodesTheLastFramesOnly() throws {
        let source = try makeMovie("source.mp4")
        let out = file("cut.mp4")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 1.5, end: 3.9, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.method, .smartCut)
        XCTAssertEqual(report.reencodedFrames, 15)
        XCTAssertGreaterThan(report.reencodedTailFrames, 0, "3.9 s falls among B-frames whose reference is after it: \(report)")
        XCTAssertLessThanOrEqual(report.reencodedTailFrames, 4, "at most a run of B-frames: \(report)")
        XCTAssertEqual(report.reencodedFrames + report.reencodedTailFrames + report.copiedVideoPackets, 72)
        try assertDecodesCleanly(out)
        let streams = try spans(out)
        XCTAssertEqual(streams[0].count, 72)
        XCTAssertEqual(try videoDuration(out), 2.4, accuracy: 0.0001)
        // The last frame is the source's frame 116.
        let last = try grey(out, frame: 71)
        let d = try [115, 116, 117].map { distance(last, try grey(source, frame: $0)) }
        XCTAssertLessThan(d[1], d[0] / 4, "\(d)")
        XCTAssertLessThan(d[1], d[2] / 4, "\(d)")
    }

    func testCutAtAKeyFrameCopiesEveryPacketUnchanged() throws {
        let source = try makeMovie("source.mp4")
        let out = file("cut.mp4")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 2, end: 4, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.method, .remux, "\(report)")
        XCTAssertEqual(report.reencodedFrames, 0)
        XCTAssertEqual(report.copiedVideoPackets, 60)
        func hashes(_ path: String) throws -> [String] {
            let (_, data, _) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"])
            return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }
                .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        XCTAssertEqual(try hashes(out), Array(try hashes(source)[60..<120]))
        let input = try TrimInput(path: out)
        XCTAssertEqual(withExtendedLifetime(input) { AVCParameterSets(avcC: MovieTrimmer.extradata(of: input.video))?.sequenceSets.count }, 1,
                       "the source's header, unchanged")
        try assertDecodesCleanly(out)
    }

    func testATrimFromTheFirstFrameKeepsTheAudioPriming() throws {
        let source = try makeMovie("source.mp4")
        let out = file("start.mp4")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 0, end: 2, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.method, .remux, "from the first key frame to the next: \(report)")
        XCTAssertEqual(try spans(source)[1].first, try spans(out)[1].first, accuracy: 0.0001, "the priming packet (before zero) is kept")
        try assertDecodesCleanly(out)
    }

    func testMatroskaIsCutTheSameWay() throws {
        let source = try makeMovie("source.mkv")
        let out = file("cut.mkv")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 0.5, end: 2.5, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.method, .smartCut, "\(report)")
        XCTAssertEqual(report.reencodedFrames, 45)
        try assertDecodesCleanly(out)
        XCTAssertEqual(try MediaProbe.probe(out).streams.filter { $0.type == "video" }.first?.packets, 60)
    }

    func testHEVCIsCopiedFromTheKeyFrameBeforeTheStartBehindAnEditList() throws {
        let source = try makeMovie("hevc.mp4", codec: ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:keyint=30:min-keyint=30:scenecut=0", "-tag:v", "hvc1"])
        let out = file("cut.mp4")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 1.5, end: 4.0, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.method, .keyFrameCut, "\(report)")
        XCTAssertEqual(report.firstFrameTime, 1.5, accuracy: 0.0001, "the edit list starts the file at 1.5 s")
        XCTAssertTrue(report.note?.contains("edit list") ?? false, "\(report)")
        try assertDecodesCleanly(out)
        // FFmpeg honours the edit list: the frames from the key frame at 1.0 s are decoded, not shown.
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                                  "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
        // (FFmpeg's MP4 reader rounds the edit list to milliseconds and may show one frame more;
        // `ffmpeg -ss 1.5 -c copy` output reads the same way.)
        let shown = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertEqual(shown, 75, accuracy: 1)
        let first = try grey(out, frame: 0)
        let d = try [44, 45, 46].map { distance(first, try grey(source, frame: $0)) }
        XCTAssertLessThan(d[1], d[0] / 4, "the first frame shown is the one at 1.5 s: \(d)")
        XCTAssertLessThan(d[1], d[2] / 4, "\(d)")
        // Matroska has no edit list: the cut moves to the key frame.
        let mkv = file("cut.mkv")
        let moved = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 1.5, end: 4.0, output: URL(fileURLWithPath: mkv))
        XCTAssertEqual(moved.method, .keyFrameCut)
        XCTAssertEqual(moved.firstFrameTime, 1.0, accuracy: 0.0001, "the key frame before 1.5 s")
        try assertDecodesCleanly(mkv)
    }

    func testChaptersInsideTheRangeAreKeptClippedAndShifted() throws {
        let source = try makeMovie("source.mp4")
        let out = file("cut.mp4")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 1.5, end: 4.0, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.chapters, 2)
        let input = try TrimInput(path: out)
        let chapters = withExtendedLifetime(input) { ChapterTable.read(input.context) }
        XCTAssertEqual(chapters.map(\.title), ["B", "C"])
        XCTAssertEqual(chapters.map { Double($0.start.nanoseconds) / 1e9 }, [0, 1.5])
        XCTAssertEqual(chapters.map { Double($0.end.nanoseconds) / 1e9 }, [1.5, 2.5])
    }

    func testBadRequestsThrowTypedErrorsAndLeaveNothing() throws {
        let source = try makeMovie("source.mp4")
        try Data("text".utf8).write(to: URL(fileURLWithPath: file("notes.mp4")))
        let before = scratch.entries
        func expect(_ input: String, _ start: Double, _ end: Double, _ output: String, _ check: (MovieTrimError) -> Bool) {
            do {
                _ = try MovieTrimmer.trim(input: URL(fileURLWithPath: input), start: start, end: end, output: URL(fileURLWithPath: output))
                XCTFail("\(input) \(start)…\(end) → \(output) should fail")
            } catch {
                XCTAssertTrue(check(error), "\(error)")
                XCTAssertFalse(error.description.isEmpty)
            }
        }
        expect(file("missing.mp4"), 0, 1, file("a.mp4")) { if case .inputMissing(let path) = $0 { return path.hasSuffix("/missing.mp4") }; return false }
        expect(file("notes.mp4"), 0, 1, file("a.mp4")) { if case .notAMovie = $0 { return true }; return false }
        expect(source, 2, 2, file("a.mp4")) { $0 == .invalidRange(start: 2, end: 2) }
        expect(source, -1, 2, file("a.mp4")) { $0 == .invalidRange(start: -1, end: 2) }
        expect(source, 7, 8, file("a.mp4")) { if case .startBeyondDuration(7, let d) = $0 { return abs(d - 6) < 0.1 }; return false }
        expect(source, 0, 1, file("nodir/a.mp4")) { if case .outputUnwritable = $0 { return true }; return false }
        expect(source, 0, 1, source) { if case .outputUnwritable = $0 { return true }; return false }
        expect(source, 0, 1, file("a.weird")) { if case .outputUnwritable = $0 { return true }; return false }
        XCTAssertEqual(scratch.entries, before, "no output and no temporary file")
    }

    func testAnExistingOutputIsReplacedOnlyWhenAsked() throws {
        let source = try makeMovie("source.mp4")
        let out = file("out.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        XCTAssertThrowsError(try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 0.5, end: 1, output: URL(fileURLWithPath: out),
                                                   replacingExisting: false)) { error in
            guard case .outputUnwritable(_, let reason) = error as? MovieTrimError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("exists"), reason)
        }
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "keep me")
        XCTAssertEqual(scratch.entries, ["chapters.txt", "out.mp4", "source.mp4"], "no temporary file left")
        let report = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 0.5, end: 1, output: URL(fileURLWithPath: out))
        XCTAssertEqual(report.duration, 0.5, accuracy: 0.0001)
        try assertDecodesCleanly(out)
        // Without replacing, into a new name: linked into place, the temporary name gone.
        _ = try MovieTrimmer.trim(input: URL(fileURLWithPath: source), start: 0.5, end: 1, output: URL(fileURLWithPath: file("new.mp4")),
                                  replacingExisting: false)
        XCTAssertEqual(scratch.entries, ["chapters.txt", "new.mp4", "out.mp4", "source.mp4"])
    }

    /// The planner alone, on a B-pyramid pattern (decode order I P B B … as x264 writes it).
    func testPlanFindsTheClosedPrefixBeforeTheEnd() throws {
        // Frames 0…11 at 10 fps (time base 1/1000, 100 ticks a frame), key frames at 0 and 8,
        // closed GOPs; decode order: 0, 4, 2, 1, 3, 7, 6, 5, 8(K), 11, 10, 9.
        let decode: [Int64] = [0, 4, 2, 1, 3, 7, 6, 5, 8, 11, 10, 9]
        let packets = decode.enumerated().map { i, frame in
            VideoPacketInfo(pts: frame * 100, dts: (Int64(i) - 2) * 100, duration: 100, isKey: frame == 0 || frame == 8)
        }
        func plan(_ start: Double, _ end: Double) throws -> TrimPlan {
            try TrimPlan.make(packets: packets, timeBase: (1, 1000), start: start, end: end, canReencode: true, fallbackReason: "", path: "x")
        }
        // Cut at frame 2 (mid-GOP), end at 6: keep 2…5, no key frame among them: all re-encoded.
        let inside = try plan(0.2, 0.6)
        XCTAssertEqual(inside.head?.frames, [200, 300, 400, 500])
        XCTAssertEqual(inside.head?.decode, 0...7, "decoded from the key frame through frame 5 (decode position 7)")
        // An open GOP (frames before a key frame decoded after it) is refused, not cut wrong.
        let open: [Int64] = [0, 4, 2, 1, 3, 8, 6, 5, 7]
        let openPackets = open.enumerated().map { i, f in VideoPacketInfo(pts: f * 100, dts: (Int64(i) - 2) * 100, duration: 100, isKey: f == 0 || f == 8) }
        XCTAssertThrowsError(try TrimPlan.make(packets: openPackets, timeBase: (1, 1000), start: 0.1, end: 0.9, canReencode: true,
                                               fallbackReason: "", path: "x"))
        XCTAssertNil(inside.copy)
        XCTAssertEqual(inside.endPts - inside.cutPts, 400)
        // From the key frame 8 to 11: keep 8, 9, 10; 9 and 10 need 11 (decoded before them): the tail.
        let tail = try plan(0.8, 1.1)
        XCTAssertNil(tail.head)
        XCTAssertEqual(tail.copy, 8..<9, "the key frame alone is a closed span")
        XCTAssertEqual(tail.tail?.frames, [900, 1000])
        XCTAssertEqual(tail.tail?.decode, 8...11)
        // From 1 to 9: head 1…7 (to the key frame), then the key frame copied.
        let head = try plan(0.1, 0.9)
        XCTAssertEqual(head.head?.frames, [100, 200, 300, 400, 500, 600, 700])
        XCTAssertEqual(head.head?.decode, 0...7)
        XCTAssertEqual(head.copy, 8..<9)
        XCTAssertNil(head.tail)
        XCTAssertEqual(head.delay, 200, "the copied key frame's pts - dts")
        // A start within a millisecond before a frame lands on it; past the end is the end.
        XCTAssertEqual(try plan(0.3995, 5).cutPts, 400)
        XCTAssertEqual(try plan(0.3995, 5).endPts, 1200)
        // Variable frame rate (a still screen: a frame every 500 ms, each with a 1/30 s duration):
        // the last kept frame stays up until the end asked for, not 33 ms.
        let still = (0..<8).map { VideoPacketInfo(pts: Int64($0) * 500, dts: Int64($0) * 500, duration: 33, isKey: $0 % 4 == 0) }
        let vfr = try TrimPlan.make(packets: still, timeBase: (1, 1000), start: 1.5, end: 3, canReencode: true, fallbackReason: "", path: "x")
        XCTAssertEqual(vfr.cutPts, 1500)
        XCTAssertEqual(vfr.lastPts, 2500)
        XCTAssertEqual(vfr.endPts, 3000, "the frame at 2.5 s lasts until 3 s")
        XCTAssertEqual(vfr.duration(ofFrameAt: 2500, input: 33), 500)
        XCTAssertEqual(vfr.duration(ofFrameAt: 2000, input: 33), 33)
    }
}
