import Foundation
import XCTest

/// Lossless trimming (docs/TRIM.md), end to end: `recordctl record` a frame-counter window on the rig, then
/// `recordctl trim` it, and check the result by decoding it (FrameCounter reads the number each
/// frame shows) and with ffprobe. See docs/recordctl/trim.md.
final class TrimTests: EndToEndTestCase {
    /// One video packet of a file, from ffprobe.
    struct VideoPacket {
        var pts: Double
        var isKey: Bool
    }

    /// A 6 s recording of a `--counter 30` window (app and mic tracks, the defaults), its video
    /// packets in presentation order and the counter each frame shows.
    private func recordCounter(_ name: String, frameRateMode: String = "constant") throws -> (path: String, packets: [VideoPacket], counters: [Int?]) {
        let rc = try Recordctl(rig)
        let w = try window(size: (320, 240), position: (200, 150), color: 0x3366CC, extraArguments: ["--counter", "30"])
        let out = path(name)
        let r = try rc.record(["--frame-rate-mode", frameRateMode, "--window", w.id, "--duration", "6", "--output", out], timeout: 120)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        let packets = try videoPackets(out)
        if frameRateMode == "constant" { XCTAssertEqual(Double(packets.count), 180, accuracy: 3, "a 6 s recording at 30 fps") }
        return (out, packets, try FrameCounter.values(out))
    }

    /// The video packets of `path` in presentation order (pts in seconds, key flag).
    private func videoPackets(_ path: String) throws -> [VideoPacket] {
        let data = try ProcessRunner.output("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                        "-of", "csv=p=0", path], timeout: 60)
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",")
            guard f.count >= 2, let pts = Double(f[0]) else { return nil }
            return VideoPacket(pts: pts, isKey: f[1].contains("K"))
        }.sorted { $0.pts < $1.pts }
    }

    /// `recordctl trim`, bounded.
    private func trim(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(try rig.recordctlPath(), ["trim"] + arguments, environment: rig.environment, timeout: 120)
    }

    /// Decoding the whole file prints no error at all.
    private func assertDecodesCleanly(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0", "-f", "null", "-"], timeout: 120)
        XCTAssertEqual(r.exitCode, 0, "\(r)", file: file, line: line)
        XCTAssertEqual(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "decoding \(path) reports errors", file: file, line: line)
    }

    /// Both audio tracks are there and each lasts as long as the video, within one AAC frame
    /// (or, with `sourceAudioEnd`, for a trim to the end of the source: each ends where the
    /// source's audio ends, moved by `start`).
    private func assertAudioMatchesVideo(_ path: String, sourceAudioEnd: Double? = nil, start: Double = 0,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try FFprobe.probe(path, countFrames: false)
        XCTAssertNotNil(probe.appAndMicAudio, "app and mic tracks kept: \(probe)", file: file, line: line)
        let video = try FFprobe.packetSpan(path, streamIndex: probe.video[0].index)
        XCTAssertEqual(video.first, 0, accuracy: 0.0005, "video starts at zero", file: file, line: line)
        let aacFrame = 1024.0 / 48000
        for track in probe.audio {
            let span = try FFprobe.packetSpan(path, streamIndex: track.index)
            // The AAC frame the cut falls in is kept, starting before zero; the MP4 edit list trims it.
            XCTAssertGreaterThan(span.first, -aacFrame - 0.0005, "audio \(track.index) starts within one AAC frame of zero", file: file, line: line)
            XCTAssertLessThan(span.first, 0.0005, "audio \(track.index) covers zero", file: file, line: line)
            let startTime = try ProcessRunner.output("ffprobe", ["-v", "error", "-select_streams", "\(track.index)", "-show_entries", "stream=start_time",
                                                             "-of", "csv=p=0", path], timeout: 60)
            XCTAssertEqual(Double(String(decoding: startTime, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, 0, accuracy: 0.0005,
                           "audio \(track.index) starts at zero (edit list)", file: file, line: line)
            // The video's end as the file states it (its edit list). FFmpeg 5.1 reads it two ways,
            // each a frame short in a case of its own: the packets' end when the last pictures
            // were re-encoded (it gives them no duration), the stream's duration (from decode
            // times) when a variable-frame-rate hole lies before the end (a CI run: 2.467 s for
            // an edit list of 2.500). The later of the two is the edit list's end.
            let videoEnd = sourceAudioEnd.map { $0 - start } ?? max(probe.video[0].duration ?? video.end, video.end)
            XCTAssertEqual(span.end, videoEnd, accuracy: aacFrame + 0.0005, "audio \(track.index) ends with the video", file: file, line: line)
        }
    }

    /// The acceptance test: trim points 1.5 s and 4.0 s of a 6 s recording; the kept file
    /// lasts 2.5 s within one frame and its first frame is the one at 1.5 s, then every frame in
    /// order up to 4.0 s; the frames up to the next key frame were the only ones re-encoded.
    func testTrimKeepsExactlyTheFramesFromStartToEnd() throws {
        try assertTrimKeepsExactlyTheFrames(frameRateMode: "constant")
    }

    /// The same with the default variable frame rate (frames only when the picture
    /// changes; a file's encode keeps its B-frames and look-ahead).
    func testVariableFrameRateRecordingTrimsTheSameWay() throws {
        try assertTrimKeepsExactlyTheFrames(frameRateMode: "variable")
    }

    private func assertTrimKeepsExactlyTheFrames(frameRateMode: String) throws {
        let source = try recordCounter("counter.mp4", frameRateMode: frameRateMode)
        let zero = try XCTUnwrap(source.packets.first).pts
        let cut = try XCTUnwrap(source.packets.lastIndex { $0.pts - zero <= 1.5 + 0.001 })
        let end = try XCTUnwrap(source.packets.firstIndex { $0.pts - zero >= 4.0 - 0.001 })
        let nextKey = source.packets[(cut + 1)...].firstIndex { $0.isKey } ?? end
        let out = path("counter-trimmed.mp4")
        let r = try trim([source.path, "--start", "1.5", "--end", "4.0"])
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out), "default output name: \(r)")
        if source.packets[cut].isKey {
            XCTAssertTrue(r.stdout.contains("remux only"), "\(r)")
        } else {
            XCTAssertTrue(r.stdout.contains("re-encoded \(min(nextKey, end) - cut) frames to the next key frame"),
                          "frames from the cut to the next key frame (\(cut)→\(nextKey)): \(r)")
        }
        try assertDecodesCleanly(out)
        let trimmed = try videoPackets(out)
        XCTAssertEqual(trimmed.count, end - cut, "frames \(cut)..<\(end)")
        let probe = try FFprobe.probe(out, countFrames: false)
        XCTAssertEqual(probe.video.first?.duration ?? 0, 2.5, accuracy: 1.0 / 30, "the kept file lasts 2.5 s within one frame")
        let counters = try FrameCounter.values(out)
        let expected = Array(source.counters[cut..<end])
        XCTAssertNotNil(counters.first ?? nil, "the first frame's counter is readable: \(counters.prefix(3))")
        XCTAssertEqual(counters.first ?? nil, expected.first ?? nil, "the first frame is the one at 1.5 s")
        XCTAssertEqual(counters.count, expected.count)
        for (i, (got, want)) in zip(counters, expected).enumerated() {
            if let got, let want { XCTAssertEqual(got, want, "frame \(i) of the trimmed file") }
        }
        try assertAudioMatchesVideo(out)
    }

    /// A cut exactly at a key frame copies every packet: the report says so and the packets
    /// are the source's, byte for byte (an end past the movie's end keeps everything after the cut).
    func testTrimAtAKeyFrameIsARemuxWithIdenticalPackets() throws {
        let source = try recordCounter("keyed.mp4")
        let zero = try XCTUnwrap(source.packets.first).pts
        let keyIndex = try XCTUnwrap(source.packets.indices.first { $0 > 0 && source.packets[$0].isKey }, "a second key frame")
        let start = source.packets[keyIndex].pts - zero
        let out = path("keyed-cut.mp4")
        let r = try trim([source.path, "--start", String(format: "%.6f", start), "--end", "60", "--output", out])
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertTrue(r.stdout.contains("remux only"), "\(r)")
        func hashes(_ path: String) throws -> [String] {
            let data = try ProcessRunner.output("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy",
                                                           "-f", "framemd5", "-"], timeout: 60)
            return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        let before = try hashes(source.path)
        let after = try hashes(out)
        XCTAssertEqual(after.count, source.packets.count - keyIndex)
        XCTAssertEqual(Array(after), Array(before.suffix(after.count)), "every packet copied unchanged")
        try assertDecodesCleanly(out)
        let sourceProbe = try FFprobe.probe(source.path, countFrames: false)
        let sourceAudioEnd = try FFprobe.packetSpan(source.path, streamIndex: sourceProbe.audio[0].index).end
        try assertAudioMatchesVideo(out, sourceAudioEnd: sourceAudioEnd, start: start)
    }

    /// Chapters from `recordctl mark` that overlap the kept span are kept, clipped and shifted.
    func testChaptersFromMarkAreKeptClippedAndShifted() throws {
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        defer { service.shutdown() }
        let w = try window(size: (320, 240), position: (200, 150), color: 0x3366CC, extraArguments: ["--counter", "30"])
        let out = path("marked.mp4")
        try service.ok(["start", "--frame-rate-mode", "constant", "--window", w.id, "--output", out])
        usleep(1_500_000)
        let first = try XCTUnwrap(Double(try service.ok(["mark", "first"])))
        usleep(2_000_000)
        let second = try XCTUnwrap(Double(try service.ok(["mark", "second"])))
        usleep(1_500_000)
        try service.ok(["stop"])
        func chapters(_ path: String) throws -> [(title: String, start: Double, end: Double)] {
            let data = try ProcessRunner.output("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", path], timeout: 60)
            let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return (root?["chapters"] as? [[String: Any]] ?? []).map {
                (($0["tags"] as? [String: Any])?["title"] as? String ?? "",
                 Double($0["start_time"] as? String ?? "") ?? -1, Double($0["end_time"] as? String ?? "") ?? -1)
            }
        }
        XCTAssertEqual(try chapters(out).map(\.title).suffix(2), ["first", "second"])
        // Keep from halfway between the marks to just after the second one.
        let start = (first + second) / 2
        let end = second + 0.5
        let trimmed = path("marked-cut.mp4")
        let r = try trim([out, "--start", String(format: "%.3f", start), "--end", String(format: "%.3f", end), "--output", trimmed])
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertTrue(r.stdout.contains("2 chapter(s)"), "\(r)")
        let kept = try chapters(trimmed)
        XCTAssertEqual(kept.map(\.title), ["first", "second"], "\(kept)")
        XCTAssertEqual(kept.first?.start ?? -1, 0, accuracy: 0.002, "the first chapter is clipped to the start")
        XCTAssertEqual(kept.last?.start ?? -1, second - start, accuracy: 1.0 / 30 + 0.002, "the second is shifted by the start")
        XCTAssertEqual(kept.last?.end ?? -1, end - start, accuracy: 1.0 / 30 + 0.002, "and ends with the kept span")
        try assertDecodesCleanly(trimmed)
    }

    /// Bad requests fail with the documented exit code and a message, and leave nothing behind.
    func testBadTrimRequestsFailClearlyAndLeaveNothing() throws {
        let rc = try Recordctl(rig)
        let source = path("short.mp4")
        let made = try rc.record(["--frame-rate-mode", "constant", "--duration", "2", "--output", source], timeout: 60)
        XCTAssertEqual(made.exitCode, Recordctl.Exit.ok, "\(made)")
        let notMovie = path("notes.mp4")
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: notMovie))
        let existing = path("exists.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let before = try FileManager.default.contentsOfDirectory(atPath: workDir).sorted()
        let cases: [([String], Int32, String)] = [
            ([path("missing.mp4"), "--start", "0", "--end", "1"], 66, "does not exist"),
            ([notMovie, "--start", "0", "--end", "1", "--output", path("x.mp4")], 65, "not a movie"),
            ([source, "--start", "1", "--end", "1", "--output", path("x.mp4")], 64, "before --end"),
            ([source, "--start", "5", "--end", "6", "--output", path("x.mp4")], 64, "beyond the end"),
            ([source, "--start", "0", "--end", "1", "--output", existing], 73, "--overwrite"),
            ([source, "--start", "0", "--end", "1", "--output", path("no-such-dir/x.mp4")], 73, "does not exist"),
            ([source, "--start", "0", "--end", "1", "--output", path("x.unknownext")], 73, "extension"),
        ]
        for (arguments, code, words) in cases {
            let r = try trim(arguments)
            XCTAssertEqual(r.exitCode, code, "\(arguments): \(r)")
            XCTAssertTrue(r.stderr.contains(words), "\(arguments): the message says \(words): \(r.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workDir).sorted(), before, "nothing left behind")
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me", "an existing file is kept without --force")
        let forced = try trim([source, "--start", "0.5", "--end", "1.5", "--output", existing, "--force"])
        XCTAssertEqual(forced.exitCode, Recordctl.Exit.ok, "\(forced)")
        try assertDecodesCleanly(existing)
    }
}
