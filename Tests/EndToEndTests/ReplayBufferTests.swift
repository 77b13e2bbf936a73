import Foundation
import XCTest

/// The replay buffer (docs/recordctl/save-replay.md): `recordctl start --replay-buffer SECONDS` and `recordctl
/// save-replay`, on the rig's real display and PulseAudio, through a private `recordd`.
///
/// The content is a moving test pattern (ffplay `testsrc2`), so every encoded frame differs.
/// The buffer and the file share one encoder, so a clip's video packets are byte for byte the
/// file's packets: matching their hashes places the clip in the recording exactly (no frame
/// lost, repeated or reordered) and gives its start and end in broadcast time.
final class ReplayBufferTests: EndToEndTestCase {
    private var service: ServiceHarness!
    private let region = "320x240+0+0"

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// Buffer 10 s beside a file, save after 20 s and again 5 s later: one video encoder; each
    /// clip lasts 10 s (up to one GOP more), ends within 0.5 s of the request, is the file's own
    /// packets, has both audio tracks starting within one audio frame of the video; the two
    /// clips overlap by what the time between the saves says; each save is an event.
    func testSaveReplayGivesTheLastTenSecondsBesideTheFileAtNoExtraEncode() throws {
        try movingPattern(title: "rk-replay-pattern")
        let events = try service.watchEvents()
        let file = path("beside.mp4")
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--output", file, "--replay-buffer", "10"])
        Thread.sleep(forTimeInterval: 20)

        let recorder = try recorderStatus()
        XCTAssertEqual(recorder["videoEncoders"] as? Int, 1, "the buffer shares the file's encoder")
        let buffer = try replayInfo(recorder)
        let bufferSeconds = Double(buffer["bufferSeconds"] ?? "") ?? -1
        XCTAssertGreaterThanOrEqual(bufferSeconds, 10, "status shows the buffer's seconds: \(buffer)")
        XCTAssertLessThanOrEqual(bufferSeconds, 12.5, "at most one GOP (2 s) and a second of reporting more: \(buffer)")
        XCTAssertGreaterThan(Int(buffer["bufferBytes"] ?? "") ?? 0, 0, "status shows the buffer's bytes: \(buffer)")

        let first = try save(path("clip1.mp4"))
        Thread.sleep(forTimeInterval: 5)
        let second = try save(path("clip2.mp4"))
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try service.ok(["stop"]), file, "the file is unaffected: stop prints it")

        let saved = events.finish().filter { $0["kind"] as? String == "replay-saved" }.compactMap { $0["path"] as? String }
        XCTAssertEqual(saved, [first.path, second.path], "each save is an event with its path")

        let filePackets = try FFprobe.videoPacketHashes(file)
        XCTAssertGreaterThan(filePackets.count, 26 * 30 - 30, "the file has the whole recording")
        var placed: [(start: Double, end: Double)] = []
        for clip in [first, second] {
            let probe = try FFprobe.probe(clip.path)
            XCTAssertEqual(probe.video.count, 1, "\(clip.path): \(probe)")
            XCTAssertEqual(probe.audio.count, 2, "\(clip.path): both audio tracks: \(probe)")
            let packets = try FFprobe.videoPacketHashes(clip.path)
            let duration = Double(packets.count) / 30
            XCTAssertGreaterThanOrEqual(duration, 10 - 0.05, "\(clip.path): 10 s")
            XCTAssertLessThanOrEqual(duration, 12 + 0.1, "\(clip.path): at most one GOP more")
            XCTAssertEqual(packets.first?.pts ?? -1, 0, accuracy: 0.001, "\(clip.path): timestamps start at zero")
            let video = try FFprobe.packetSpan(clip.path, streamIndex: probe.video[0].index)
            for audio in probe.audio {
                let span = try FFprobe.packetSpan(clip.path, streamIndex: audio.index)
                XCTAssertEqual(span.first, video.first, accuracy: 1024.0 / 48000 + 0.001,
                               "\(clip.path): audio #\(audio.index) starts within one audio frame of the video")
                XCTAssertEqual(span.end, video.end, accuracy: 0.3, "\(clip.path): audio #\(audio.index) lasts as long as the video")
            }
            try assertTones(clip.path, probe)
            guard let offset = Self.offset(of: packets.map(\.hash), in: filePackets.map(\.hash)) else {
                XCTFail("\(clip.path): its video packets are not a run of the file's packets")
                continue
            }
            let start = filePackets[offset].pts
            let end = start + duration
            verbose("\(clip.path): file \(String(format: "%.3f", start))–\(String(format: "%.3f", end)) s; request at \(clip.before)–\(clip.after) s")
            XCTAssertGreaterThanOrEqual(end, clip.before - 0.5, "\(clip.path): the last frame is within 0.5 s of the request")
            XCTAssertLessThanOrEqual(end, clip.after + 0.5, "\(clip.path): the last frame is within 0.5 s of the request")
            placed.append((start, end))
        }
        guard placed.count == 2 else { return }
        // The second save came 5 s (plus the first save's own time) later: its window moved on by
        // that much, give or take the one-GOP rounding of each start.
        let moved = placed[1].end - placed[0].end
        XCTAssertEqual(moved, second.before - first.before, accuracy: 0.6, "the ends are as far apart as the requests")
        let overlap = placed[0].end - placed[1].start
        let want = (placed[0].end - placed[0].start) - (placed[1].start - placed[0].start)
        XCTAssertEqual(overlap, want, accuracy: 1.0 / 30, "the clips overlap by the right amount")
        XCTAssertGreaterThan(overlap, 10 - 5 - 2 - 0.6, "the clips overlap by about 5 s")
    }

    /// The default (variable frame rate) with a file beside the buffer: the buffer waits for the
    /// encoder like the file, so their shared encode keeps x264's look-ahead and B-frames. The
    /// file has B-frames and every frame decodes (as many frames as packets, presentation times
    /// strictly increasing, the moving pattern's pictures); the clip is a run of the file's
    /// packets, starts on a key frame at zero, keeps the file's spacing of presentation times
    /// (to 1 ms) and lasts as long as its last picture plus one frame, its audio as long.
    func testFileBesideTheBufferKeepsLookAheadAndBFrames() throws {
        try movingPattern(title: "rk-replay-lookahead")
        let file = path("lookahead.mp4")
        try service.ok(["start", "--region", region, "--output", file, "--replay-buffer", "30"])
        Thread.sleep(forTimeInterval: 8)
        XCTAssertEqual(try recorderStatus()["videoEncoders"] as? Int, 1, "the buffer shares the file's encoder")
        let clip = try save(path("lookahead-clip.mp4"))
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try service.ok(["stop"]), file)

        for output in [file, clip.path] {
            let frames = try Self.videoFrames(output)
            let packets = try FFprobe.videoPacketHashes(output)
            XCTAssertEqual(frames.count, packets.count, "\(output): every packet decodes into a picture")
            XCTAssertGreaterThan(frames.filter { $0.type == "B" }.count, frames.count / 10, "\(output): B-frames (look-ahead kept)")
            let times = frames.map(\.pts)
            XCTAssertEqual(times, times.sorted(), "\(output): pictures come out in presentation order")
            XCTAssertEqual(Set(times).count, times.count, "\(output): no presentation time twice")
            XCTAssertEqual(frames.first?.type, "I", "\(output): starts on a key frame")
            XCTAssertEqual(times.first ?? -1, 0, accuracy: 0.001, "\(output): starts at zero")
        }
        let fileFrames = try Self.videoFrames(file)
        // ffplay itself falls behind on a loaded machine: at least half its nominal 30 pictures a second.
        XCTAssertGreaterThan(Double(fileFrames.count), 0.5 * 30 * (clip.after + 1), "the file has the moving pattern's pictures")
        let filePackets = try FFprobe.videoPacketHashes(file)
        let clipPackets = try FFprobe.videoPacketHashes(clip.path)
        XCTAssertGreaterThan(clipPackets.count, 5 * 30, "the clip holds the recording so far")
        guard let offset = Self.offset(of: clipPackets.map(\.hash), in: filePackets.map(\.hash)) else {
            return XCTFail("the clip's video packets are not a run of the file's packets")
        }
        let base = filePackets[offset].pts
        for (index, packet) in clipPackets.enumerated() {
            XCTAssertEqual(packet.pts + base, filePackets[offset + index].pts, accuracy: 0.001, "clip packet \(index): the file's time")
        }
        let probe = try FFprobe.probe(clip.path)
        let video = try XCTUnwrap(probe.video.first)
        let clipFrames = try Self.videoFrames(clip.path).map(\.pts)
        let lastStep = clipFrames.count >= 2 ? clipFrames[clipFrames.count - 1] - clipFrames[clipFrames.count - 2] : 0
        XCTAssertEqual(video.duration ?? 0, (clipFrames.last ?? 0) + 1.0 / 30, accuracy: lastStep + 0.002,
                       "the clip's video lasts to its last picture's end: \(probe)")
        for audio in probe.audio {
            XCTAssertEqual(audio.duration ?? 0, video.duration ?? 0, accuracy: 0.3, "audio #\(audio.index) lasts as long as the video")
        }
    }

    /// Each decoded video frame of `path`: its presentation time and picture type, in output order.
    private static func videoFrames(_ path: String) throws -> [(pts: Double, type: String)] {
        let data = try ProcessRunner.output("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                        "frame=pts_time,pict_type", "-of", "csv=p=0", path], timeout: 120)
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",")
            guard f.count >= 2, let pts = Double(f[0]) else { return nil }
            return (pts, String(f[1]))
        }
    }

    /// `--replay-buffer --no-file`: nothing is written until a save, and the save works.
    func testNoFileBuffersOnlyAndWritesNothingButTheClip() throws {
        try movingPattern(title: "rk-replay-pattern")
        let out = path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--no-file", "--replay-buffer", "5"])
        Thread.sleep(forTimeInterval: 7)
        let recorder = try recorderStatus()
        let handlers = (recorder["handlers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(handlers, ["replay-buffer"], "the buffer is the only handler")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), [], "nothing written while buffering")
        let markedAt = Double(try service.ok(["mark", "Bug"])) ?? -1
        Thread.sleep(forTimeInterval: 1)
        let clip = try save(out + "/only.mp4")
        XCTAssertEqual(try service.ok(["stop"]), "", "stop has no file to print")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["only.mp4"], "only the clip")
        let packets = try FFprobe.videoPacketHashes(clip.path)
        // The buffer's 5 s of time; its frames but for a few the shared machine lost before the
        // encode (a CI run's clip had 148 frames in its 5 s).
        let clipSeconds = try FFprobe.probe(clip.path, countFrames: false).video.first?.duration ?? 0
        XCTAssertGreaterThanOrEqual(clipSeconds, 5 - 0.05, "the clip holds the buffer's time")
        XCTAssertGreaterThanOrEqual(Double(packets.count), clipSeconds * 30 - 10, "and its frames")
        // The marker inside the clip's window is a chapter of the clip, at its place in it.
        let chapters = String(decoding: try ProcessRunner.output("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0",
                                                                               "-show_entries", "chapter=start_time:chapter_tags=title", clip.path]),
                              as: UTF8.self).split(whereSeparator: \.isNewline).map { $0.split(separator: ",") }
        let bug = chapters.first { $0.count >= 2 && $0[1] == "Bug" }
        XCTAssertNotNil(bug, "the clip has the marker as a chapter: \(chapters)")
        if let bug, let start = Double(bug[0]) {
            // The clip ends when the save ran, somewhere between the recorded times read just
            // before and just after the request (over a second apart on a loaded machine: a CI
            // run's chapter sat 1.2 s before where `before` alone put it).
            let clipEnd = clipSeconds
            verbose("chapter at \(start) s of \(clipEnd); marked at \(markedAt), saved between \(clip.before) and \(clip.after)")
            XCTAssertGreaterThanOrEqual(start, clipEnd - (clip.after - markedAt) - 0.6, "the chapter sits where the mark was made")
            XCTAssertLessThanOrEqual(start, clipEnd - (clip.before - markedAt) + 0.6, "the chapter sits where the mark was made")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.sessionsDir), [], "session directory removed")
    }

    /// Pause while buffering: the clip across the pause is exactly the file's frames with the
    /// file's spacing (the file cuts the pause too; the buffer adds no gap and loses no frame),
    /// and the buffer freezes no frame (ffmpeg `freezedetect` finds no run in the clip that the
    /// file does not have at the same time). Since
    /// damage-driven capture landed, the recording itself (file and clip alike) shows one empty frame slot at
    /// the pause in constant-frame-rate mode; that is the pipeline's, reported, not asserted here.
    func testPauseWhileBufferingGivesAContinuousClip() throws {
        try movingPattern(title: "rk-replay-pattern")
        let file = path("paused.mp4")
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--output", file, "--replay-buffer", "30"])
        Thread.sleep(forTimeInterval: 4)
        try service.ok(["pause"])
        Thread.sleep(forTimeInterval: 3)
        try service.ok(["resume"])
        Thread.sleep(forTimeInterval: 4)
        let clip = try save(path("across-pause.mp4"))
        try service.ok(["stop"])

        let packets = try FFprobe.videoPacketHashes(clip.path)
        let duration = Double(packets.count) / 30
        XCTAssertGreaterThanOrEqual(duration, 7.5, "the clip holds both sides of the pause")
        XCTAssertLessThanOrEqual(duration, 9.5, "and not the paused time")
        // The clip is the file's own frames (the file cuts the pause too), with the same
        // spacing: the buffer adds no gap and loses no frame across the pause.
        let filePackets = try FFprobe.videoPacketHashes(file)
        let offset = Self.offset(of: packets.map(\.hash), in: filePackets.map(\.hash))
        XCTAssertNotNil(offset, "the clip is the file's own frames")
        func deltas(_ p: ArraySlice<(pts: Double, hash: String)>) -> [Int] {
            let t = p.map(\.pts).sorted()
            return zip(t, t.dropFirst()).map { Int((($1 - $0) * 30).rounded()) }
        }
        if let offset {
            XCTAssertEqual(deltas(packets[...]), deltas(filePackets[offset..<(offset + packets.count)]),
                           "the same frame spacing as the file across the pause")
        }
        let gaps = deltas(packets[...]).filter { $0 != 1 }
        verbose("frame-period gaps in the clip (the recording's own, across the pause): \(gaps)")
        XCTAssertLessThanOrEqual(gaps.count, 1, "at most the pause's own seam")
        // The buffer freezes nothing: every run of identical pictures in the clip is in the file
        // at the same time. (The buffer and the file share one encode that, both waiting for the
        // encoder, splices skip pictures into slots where the pattern did not change: ffplay
        // stalls now and then on a loaded machine, and the recording shows it, file and clip alike.)
        let clipFreezes = try Self.freezeStarts(clip.path)
        if let offset {
            let base = filePackets[offset].pts
            let fileFreezes = try Self.freezeStarts(file)
            for start in clipFreezes {
                XCTAssertTrue(fileFreezes.contains { abs($0 - (start + base)) < 0.002 },
                              "a frozen run at \(start) s in the clip that the file does not have at \(start + base) s: \(fileFreezes)")
            }
        }
    }

    /// Where ffmpeg's `freezedetect` (any change below 0.0001, at least 0.1 s) finds a frozen run in `path`'s video.
    private static func freezeStarts(_ path: String) throws -> [Double] {
        let freeze = try ProcessRunner.run("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-vf", "freezedetect=n=0.0001:d=0.1",
                                                      "-map", "0:v", "-f", "null", "-"], timeout: 120)
        XCTAssertEqual(freeze.exitCode, 0, "\(freeze)")
        return freeze.stderr.split(whereSeparator: \.isNewline).compactMap { line in
            guard let range = line.range(of: "freeze_start: ") else { return nil }
            return Double(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// A 60 s buffer of 1080p at 30 fps with a 1 MiB bound: the bound holds (whole GOPs leave
    /// the front), status reports the bytes and seconds, and a save still works.
    func testSixtySecondBufferAt1080pStaysUnderItsByteBound() throws {
        try movingPattern(size: "960x540", title: "rk-replay-pattern")
        try service.ok(["start", "--frame-rate-mode", "constant", "--no-file", "--replay-buffer", "60", "--replay-buffer-max-mb", "1"])
        var highest = 0
        for _ in 0..<6 {
            Thread.sleep(forTimeInterval: 2.5)
            let recorder = try recorderStatus()
            let capture = recorder["capture"] as? [String: Any] ?? [:]
            XCTAssertEqual(capture["width"] as? Int, 1920)
            let buffer = try replayInfo(recorder)
            let bytes = Int(buffer["bufferBytes"] ?? "") ?? -1
            let seconds = Double(buffer["bufferSeconds"] ?? "") ?? -1
            verbose("buffer: \(bytes) bytes, \(seconds) s")
            XCTAssertGreaterThanOrEqual(bytes, 0, "status reports the bytes: \(buffer)")
            XCTAssertLessThanOrEqual(bytes, 1_048_576, "under the byte bound")
            XCTAssertLessThan(seconds, 60)
            XCTAssertEqual(buffer["bufferLimitBytes"], "1048576")
            highest = max(highest, bytes)
        }
        let recorded = (try recorderStatus()["recordedSeconds"] as? Double) ?? 0
        let buffered = Double(try replayInfo(try recorderStatus())["bufferSeconds"] ?? "") ?? -1
        XCTAssertLessThan(buffered, recorded - 2, "the byte bound, not the 60 s, limits the buffer (1080p moving content)")
        XCTAssertGreaterThan(highest, 256 * 1024, "the buffer filled towards its bound")
        let clip = try save(path("bounded.mp4"))
        try service.ok(["stop"])
        XCTAssertEqual(try FFprobe.probe(clip.path, countFrames: false).video.first?.height, 1080)
    }

    /// `save-replay` without a replay buffer says how to get one.
    func testSaveReplayWithoutABufferSaysHowToStartOne() throws {
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--output", path("plain.mp4")])
        let r = try service.ctl(["save-replay"])
        XCTAssertNotEqual(r.exitCode, 0)
        XCTAssertTrue(r.stderr.contains("--replay-buffer"), "\(r)")
        try service.ok(["stop"])
    }

    // MARK: Helpers

    private struct Saved {
        var path: String
        /// Recorded seconds just before and just after the request.
        var before: Double
        var after: Double
    }

    private func save(_ output: String) throws -> Saved {
        let before = (try recorderStatus()["recordedSeconds"] as? Double) ?? -1
        let printed = try service.ok(["save-replay", "--output", output])
        let after = (try recorderStatus()["recordedSeconds"] as? Double) ?? -1
        XCTAssertEqual(printed, output, "save-replay prints the clip's path")
        return Saved(path: output, before: before, after: after)
    }

    private func recorderStatus() throws -> [String: Any] {
        let recording = try XCTUnwrap(try service.status()["recording"] as? [String: Any], "a recording is running")
        return try XCTUnwrap(recording["recorder"] as? [String: Any])
    }

    private func replayInfo(_ recorder: [String: Any]) throws -> [String: String] {
        let handler = (recorder["handlers"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "replay-buffer" }
        return try XCTUnwrap(handler?["serviceInfo"] as? [String: String], "the replay buffer is a handler: \(recorder)")
    }


    /// Where `needle` occurs in `haystack` as a contiguous run, or nil.
    private static func offset(of needle: [String], in haystack: [String]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }
}
