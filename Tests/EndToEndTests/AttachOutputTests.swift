import Foundation
import XCTest

/// Outputs that come and go on one running capture (docs/ARCHITECTURE.md, "Lifecycle"): a
/// replay buffer runs while files and an RTMP stream are added with `recordctl start` and
/// stopped with `recordctl stop ID`, through a private `recordd` on the rig's display,
/// PulseAudio and nginx-rtmp. Everything is checked by decoding what was written.
final class AttachOutputTests: EndToEndTestCase {
    private var service: ServiceHarness!
    private let region = "320x240+0+0"

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// `start --no-file --replay-buffer 30`, then a file added and stopped twice (the second
    /// paused alone for 2 s), an RTMP stream added and stopped beside the first: each file is
    /// whole (starts with a key frame, video and both audio tracks, as long as it was attached,
    /// the second without its pause), the stream reached the server, the buffer never paused
    /// and its clip saved afterwards plays; the file shares the buffer's video encoder, the
    /// stream's encoder stops with it; each change is an event; the last output's stop ends the recording.
    func testFilesAndAStreamComeAndGoBesideARunningReplayBuffer() throws {
        let (url, recordDir) = try rtmpServer()
        let key = "testkey-attach-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        try movingPattern(title: "rk-attach-pattern")
        let events = try service.watchEvents()
        let id = try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--no-file", "--replay-buffer", "30"])
        Thread.sleep(forTimeInterval: 2)

        // The first file and the stream.
        let fileA = path("a.mp4")
        let idA = try service.ok(["start", "--output", fileA])
        let idStream = try service.ok(["start", "--no-file", "--rtmp", "\(url)/\(key)"])
        XCTAssertEqual([idA, idStream], ["file", "rtmp"], "each added output has its own id")
        Thread.sleep(forTimeInterval: 5)
        let during = try recorderStatus()
        let names = (during["handlers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(names, ["replay-buffer", "file", "rtmp"], "status lists every output: \(during)")
        XCTAssertEqual(during["videoEncoders"] as? Int, 2, "the file shares the buffer's encoder; the stream has its own settings: \(during)")
        XCTAssertEqual(try service.ok(["stop", idA]), fileA, "stop ID prints that output's file")
        XCTAssertEqual(try recorderStatus()["state"] as? String, "recording", "the capture goes on")

        // The second file, paused alone for 2 s, while the stream goes on; then the stream stops.
        let fileB = path("b.mp4")
        let idB = try service.ok(["start", "--output", fileB])
        XCTAssertEqual(idB, "file-2", "ids are not reused")
        Thread.sleep(forTimeInterval: 2)
        try service.ok(["pause", idB])
        Thread.sleep(forTimeInterval: 2)
        let paused = try recorderStatus()
        let pausedFlags = Dictionary(uniqueKeysWithValues: (paused["handlers"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["paused"] as? Bool ?? false)
        })
        XCTAssertEqual(pausedFlags, ["replay-buffer": false, "rtmp": false, "file-2": true], "only the file pauses: \(paused)")
        XCTAssertEqual(paused["state"] as? String, "recording")
        try service.ok(["resume", idB])
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual(try service.ok(["stop", idB]), fileB)
        let streamStopped = try service.ctl(["stop", idStream])
        XCTAssertEqual(streamStopped.exitCode, Recordctl.Exit.ok, "\(streamStopped)")
        XCTAssertFalse(streamStopped.stdout.contains(key), "the stream key is masked: \(streamStopped.stdout)")
        let after = try recorderStatus()
        XCTAssertEqual((after["handlers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }, ["replay-buffer"])
        XCTAssertEqual(after["videoEncoders"] as? Int, 1, "the stream's encoder stopped with it: \(after)")

        let clip = path("clip.mp4")
        XCTAssertEqual(try service.ok(["save-replay", "--seconds", "10", "--output", clip]), clip)
        let finalStop = try service.ctl(["stop", "replay-buffer"])
        XCTAssertEqual(finalStop.exitCode, Recordctl.Exit.ok, "the last output's stop ends the recording: \(finalStop)")
        XCTAssertNil(try service.status()["recording"], "no recording runs")
        let seen = events.finish()
        func outputEvents(_ kind: String) -> [String] {
            seen.filter { $0["kind"] as? String == kind && $0["recordingId"] as? String == id }.compactMap { $0["handler"] as? String }
        }
        XCTAssertEqual(outputEvents("output-started"), ["file", "rtmp", "file-2"])
        XCTAssertEqual(outputEvents("output-stopped"), ["file", "file-2", "rtmp"])
        XCTAssertEqual(outputEvents("output-paused"), ["file-2"])
        // The recording's time (broadcast seconds) at each output event: how long each file was attached.
        func time(_ kind: String, _ handler: String) -> Double {
            seen.first { $0["kind"] as? String == kind && $0["handler"] as? String == handler }.flatMap { ($0["time"] as? NSNumber)?.doubleValue } ?? -99
        }
        verbose("output events: " + seen.filter { ($0["kind"] as? String)?.hasPrefix("output-") == true }
            .map { "\($0["kind"] ?? "") \($0["handler"] ?? "") at \($0["time"] ?? "")" }.joined(separator: ", "))
        let spanA = time("output-stopped", "file") - time("output-started", "file")
        let spanB = time("output-stopped", "file-2") - time("output-started", "file-2")
            - (time("output-resumed", "file-2") - time("output-paused", "file-2"))
        try assertWhole(fileA, seconds: spanA, tolerance: 0.6)
        try assertWhole(fileB, seconds: spanB, tolerance: 0.6)
        let streams = RTMPServerRecordings.wait(for: key, in: recordDir, count: 1)
        XCTAssertEqual(streams.count, 1, "the server recorded the stream once")
        if let flv = streams.first {
            let probe = try FFprobe.probe(flv)
            XCTAssertEqual(probe.video.count, 1, "\(probe)")
            XCTAssertEqual(probe.audio.count, 1, "the mixed track: \(probe)")
            XCTAssertGreaterThanOrEqual(probe.video.first?.frameCount ?? 0, Int(30 * 10), "about 14 s of stream: \(probe)")
        }
        let clipProbe = try FFprobe.probe(clip)
        XCTAssertEqual(clipProbe.video.count, 1, "\(clipProbe)")
        XCTAssertEqual(clipProbe.audio.count, 2, "\(clipProbe)")
        XCTAssertGreaterThanOrEqual(clipProbe.video.first?.frameCount ?? 0, 30 * 10 - 5, "the clip has its 10 s: \(clipProbe)")
        let clipKeys = try FFprobe.keyFrameTimes(clip, streamIndex: clipProbe.video[0].index)
        XCTAssertEqual(clipKeys.first ?? -1, 0, accuracy: 0.001, "the clip starts with a key frame")
    }

    /// `discard ID` deletes one attached output: a second file added beside the first and
    /// discarded after 3 s leaves no file, no working files and no journal entry, while the
    /// capture, the first file and their shared encoder go on; the first file decodes whole for
    /// the recording's full length; an unknown id is a usage error (exit 64); an
    /// `output-discarded` event names it.
    func testDiscardingOneOutputDeletesItAndTheOthersGoOn() throws {
        try movingPattern(title: "rk-discard-pattern")
        let events = try service.watchEvents()
        let fileA = path("keep.mp4")
        let id = try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--output", fileA])
        Thread.sleep(forTimeInterval: 1)
        let fileB = path("bad-take.mp4")
        XCTAssertEqual(try service.ok(["start", "--output", fileB]), "file-2")
        Thread.sleep(forTimeInterval: 3)
        let journalPath = service.sessionsDir + "/" + id + "/journal.json"
        let entryB = try XCTUnwrap(try journalHandlers(journalPath).first { $0["name"] as? String == "file-2" }, "the journal lists file-2")
        let directoryB = try XCTUnwrap(entryB["directory"] as? String)
        let working = (try? FileManager.default.contentsOfDirectory(atPath: directoryB)) ?? []
        let written = working.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: directoryB + "/" + $1))?[.size] as? Int ?? 0) }
        XCTAssertGreaterThan(written, 0, "file-2 was writing its working file: \(working)")
        XCTAssertEqual(try recorderStatus()["videoEncoders"] as? Int, 1, "both files share one encoder")

        let unknown = try service.ctl(["discard", "no-such-output"])
        XCTAssertEqual(unknown.exitCode, Recordctl.Exit.usage, "\(unknown)")
        let discarded = try service.ctl(["discard", "file-2"])
        XCTAssertEqual(discarded.exitCode, Recordctl.Exit.ok, "\(discarded)")
        XCTAssertTrue(discarded.stdout.contains("removed \(directoryB)"), "it prints what it removed: \(discarded.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileB), "no file at the discarded output's destination")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directoryB), "its working directory is gone")
        XCTAssertEqual(try journalHandlers(journalPath).compactMap { $0["name"] as? String }, ["file"], "the journal forgot file-2")
        let after = try recorderStatus()
        XCTAssertEqual(after["state"] as? String, "recording", "the capture goes on: \(after)")
        XCTAssertEqual((after["handlers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }, ["file"])
        XCTAssertEqual(after["videoEncoders"] as? Int, 1, "the shared encoder goes on for the first file: \(after)")
        Thread.sleep(forTimeInterval: 2)
        let recorded = (try recorderStatus()["recordedSeconds"] as? NSNumber)?.doubleValue ?? 0
        XCTAssertEqual(try service.ok(["stop"]), fileA)
        let seen = events.finish()
        let discardEvents = seen.filter { $0["kind"] as? String == "output-discarded" && $0["recordingId"] as? String == id }
        XCTAssertEqual(discardEvents.compactMap { $0["handler"] as? String }, ["file-2"], "\(seen)")
        try assertWhole(fileA, seconds: recorded, tolerance: 0.6)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileB), "nothing brought the discarded file back")
    }

    /// A raw-PCM extension attached to a running capture numbers its audio from its own start,
    /// as an attached file's time starts at its own zero: its first block is frame 0 (not the
    /// capture's count), the blocks are contiguous through a pause and resume of that output
    /// alone, and each block's time is on the output's axis (its frame number's time, plus at
    /// most one block, plus the gap its resume at a key frame left).
    func testAnAttachedPCMExtensionCountsFramesFromItsOwnStart() throws {
        let dir = path("extensions/pcm-log")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try #"{"name": "pcm-log", "version": "1.0.0", "entry": {"executable": "program"}, "input": {"video": {"format": "raw", "pixelFormat": "bgr0"}, "audioApp": {"format": "pcm"}}, "setup": {"log": {"type": "string"}}}"#
            .write(toFile: dir + "/manifest.json", atomically: true, encoding: .utf8)
        let program = URL(fileURLWithPath: service.recordctl).deletingLastPathComponent().appendingPathComponent("rk-test-extension").path
        try FileManager.default.createSymbolicLink(atPath: dir + "/program", withDestinationPath: program)
        try movingPattern(title: "rk-pcm-pattern")
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--no-file", "--replay-buffer", "10"])
        Thread.sleep(forTimeInterval: 3)
        let log = path("pcm.log")
        XCTAssertEqual(try service.ok(["start", "--no-file", "--extensions-dir", path("extensions"), "--extension", "pcm-log",
                                       "--setup", "pcm-log:log=\(log)"]), "pcm-log")
        Thread.sleep(forTimeInterval: 2)
        try service.ok(["pause", "pcm-log"])
        Thread.sleep(forTimeInterval: 1)
        try service.ok(["resume", "pcm-log"])
        Thread.sleep(forTimeInterval: 2)
        try service.ok(["stop", "pcm-log"])
        try service.ok(["stop"])

        // "enter sample audioApp NS BYTES frame START COUNT"
        let blocks = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> (ns: Int64, start: Int64, count: Int64)? in
            let f = line.split(separator: " ")
            guard f.count == 8, f[1] == "sample", f[2] == "audioApp", f[5] == "frame",
                  let ns = Int64(f[3]), let start = Int64(f[6]), let count = Int64(f[7]) else { return nil }
            return (ns, start, count)
        }
        XCTAssertGreaterThan(blocks.count, 150, "about 4 s of 1024-frame blocks at 48 kHz: \(blocks.count)")
        guard let first = blocks.first else { return }
        XCTAssertEqual(first.start, 0, "the attached extension's first block is its frame 0, not the capture's count")
        XCTAssertLessThan(first.ns, 1024 * 1_000_000_000 / 48_000 + 1_000_000, "and starts within a block of its zero: \(first.ns) ns")
        var gaps = 0
        for (previous, next) in zip(blocks, blocks.dropFirst()) where next.start != previous.start + previous.count { gaps += 1 }
        XCTAssertEqual(gaps, 0, "contiguous, through the output's own pause and resume")
        var behind = 0
        for block in blocks where block.ns < block.start * 1_000_000_000 / 48_000 - 1_000_000 { behind += 1 }
        XCTAssertEqual(behind, 0, "no block is placed before its frame number's time")
        let last = try XCTUnwrap(blocks.last)
        XCTAssertLessThan(Double(last.ns - last.start * 1_000_000_000 / 48_000), 0.25e9,
                          "time and count agree but for the gap the resume at a key frame left: \(last)")
    }

    /// With one audio track the "mixed" track is that track's PCM, so an output attached later
    /// shares the running AAC encoder of the other: a stream (mixed audio) runs alone, a file
    /// (the app track) joins it and status still counts 1 audio encoder; the stream stops and
    /// the encoder goes on for the file. The file's audio is whole through the stream's stop
    /// (as long as its video) and the server's copy of the stream has its audio.
    func testAFileAttachedBesideAStreamSharesItsAudioEncoder() throws {
        let (url, recordDir) = try rtmpServer()
        let key = "testkey-share-\(UUID().uuidString.prefix(8).lowercased())"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        try movingPattern(title: "rk-share-pattern")
        let events = try service.watchEvents()
        try service.ok(["start", "--frame-rate-mode", "constant", "--region", region, "--no-mic", "--no-file", "--rtmp", "\(url)/\(key)"])
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try recorderStatus()["audioEncoders"] as? Int, 1, "the stream's mixed track")
        let file = path("beside-stream.mp4")
        XCTAssertEqual(try service.ok(["start", "--output", file]), "file")
        Thread.sleep(forTimeInterval: 3)
        let during = try recorderStatus()
        XCTAssertEqual(during["audioEncoders"] as? Int, 1, "the file's app track is the same PCM: it shares the stream's encoder: \(during)")
        XCTAssertEqual((during["capture"] as? [String: Any])?["audioTracks"] as? [String], ["audioApp"], "\(during)")
        let stream = try service.ctl(["stop", "rtmp"])
        XCTAssertEqual(stream.exitCode, Recordctl.Exit.ok, "\(stream)")
        Thread.sleep(forTimeInterval: 2)
        let after = try recorderStatus()
        XCTAssertEqual(after["audioEncoders"] as? Int, 1, "the encoder goes on for the file: \(after)")
        XCTAssertEqual(try service.ok(["stop"]), file)
        let seen = events.finish()
        func time(_ kind: String) -> Double {
            seen.first { $0["kind"] as? String == kind && $0["handler"] as? String == "file" }.flatMap { ($0["time"] as? NSNumber)?.doubleValue } ?? -99
        }
        let probe = try FFprobe.probe(file)
        XCTAssertEqual(probe.video.count, 1, "\(probe)")
        XCTAssertEqual(probe.audio.count, 1, "the one app track: \(probe)")
        if let video = probe.video.first, let audio = probe.audio.first {
            let v = try FFprobe.packetSpan(file, streamIndex: video.index)
            let a = try FFprobe.packetSpan(file, streamIndex: audio.index)
            XCTAssertGreaterThan(v.end - v.first, 4.0, "about 5 s attached (from \(time("output-started"))): \(v)")
            XCTAssertEqual(a.end - a.first, v.end - v.first, accuracy: 0.5, "audio whole through the stream's stop: \(a) vs \(v)")
            let packets = try FFprobe.packetTimes(file, streamIndex: audio.index).sorted()
            let largestGap = zip(packets, packets.dropFirst()).map { $1 - $0 }.max() ?? 0
            XCTAssertLessThan(largestGap, 0.1, "no hole in the audio where the stream stopped")
        }
        let flv = RTMPServerRecordings.wait(for: key, in: recordDir, count: 1)
        XCTAssertEqual(flv.count, 1, "the server recorded the stream")
        if let recorded = flv.first {
            let streamProbe = try FFprobe.probe(recorded)
            XCTAssertEqual(streamProbe.audio.count, 1, "the stream's mixed track: \(streamProbe)")
            if let audio = streamProbe.audio.first {
                let span = try FFprobe.packetSpan(recorded, streamIndex: audio.index)
                XCTAssertGreaterThan(span.end - span.first, 4, "about 5 s of the stream's audio: \(span)")
            }
        }
    }

    /// A `start` that names other capture options while a capture runs is refused (exit 75)
    /// with the option it differs in, and the capture goes on; an unknown output id is a usage
    /// error (exit 64); `stop` of the recording's id stops it whole.
    func testStartWithOtherCaptureOptionsIsRefusedAndTheCaptureGoesOn() throws {
        let id = try service.ok(["start", "--region", region, "--no-file", "--replay-buffer", "10"])
        let other = try service.ctl(["start", "--fps", "15", "--output", path("x.mp4")])
        XCTAssertEqual(other.exitCode, 75, "\(other)")
        XCTAssertTrue(other.stderr.contains("--fps 15") && other.stderr.contains("stop the recording first"), other.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.mp4")), "nothing was written")
        // A capture source's declared option is the capture's too: repeating it joins, changing it is refused.
        let noMic = try service.ctl(["start", "--no-mic", "--output", path("y.mp4")])
        XCTAssertEqual(noMic.exitCode, 75, "\(noMic)")
        XCTAssertTrue(noMic.stderr.contains("--no-mic true (the running capture: none)"), noMic.stderr)
        let otherRegion = try service.ctl(["start", "--region", "64x64+0+0", "--output", path("z.mp4")])
        XCTAssertEqual(otherRegion.exitCode, 75, "\(otherRegion)")
        XCTAssertTrue(otherRegion.stderr.contains("--region 64x64+0+0 (the running capture: \(region))"), otherRegion.stderr)
        let unknown = try service.ctl(["stop", "no-such-output"])
        XCTAssertEqual(unknown.exitCode, Recordctl.Exit.usage, "\(unknown)")
        XCTAssertTrue(unknown.stderr.contains("replay-buffer"), "the error lists the outputs: \(unknown.stderr)")
        XCTAssertEqual(try recorderStatus()["state"] as? String, "recording")
        try service.ok(["stop", id])
        XCTAssertNil(try service.status()["recording"], "stop of the recording's id stops it")
    }

    /// `path` decodes whole: it starts with a key frame (at zero), has video and both audio
    /// tracks, its video lasts `seconds` ± `tolerance` (the recording's time between its output
    /// events) with at least 40 % of 30 fps in frames, and its audio as long as its video.
    private func assertWhole(_ path: String, seconds: Double, tolerance: Double, line: UInt = #line) throws {
        let probe = try FFprobe.probe(path)
        XCTAssertEqual(probe.video.count, 1, "\(path): \(probe)", line: line)
        XCTAssertEqual(probe.audio.count, 2, "\(path): both audio tracks: \(probe)", line: line)
        guard let video = probe.video.first else { return }
        let span = try FFprobe.packetSpan(path, streamIndex: video.index)
        verbose("\(path): \(probe); attached \(String(format: "%.2f", seconds)) s")
        // By time, not frames: a loaded machine's encoder drops frames (an `overload` event), the time stays.
        XCTAssertEqual(span.end - span.first, seconds, accuracy: tolerance, "\(path): \(span) for \(seconds) s attached", line: line)
        XCTAssertGreaterThanOrEqual(Double(video.frameCount ?? 0), seconds * 30 * 0.4, "\(path): frames", line: line)
        let keys = try FFprobe.keyFrameTimes(path, streamIndex: video.index)
        let packets = try FFprobe.packetTimes(path, streamIndex: video.index)
        XCTAssertEqual(keys.first ?? -1, packets.min() ?? -2, accuracy: 0.001, "\(path): the first frame is a key frame", line: line)
        XCTAssertLessThan(keys.first ?? 99, 0.1, "\(path): the video starts at zero", line: line)
        for audio in probe.audio {
            let a = try FFprobe.packetSpan(path, streamIndex: audio.index)
            XCTAssertEqual(a.end - a.first, span.end - span.first, accuracy: 0.5, "\(path): audio #\(audio.index) as long as the video", line: line)
        }
    }

    /// The handlers the session journal at `path` lists (each `name`, `extension`, `directory`).
    private func journalHandlers(_ path: String) throws -> [[String: Any]] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path), "the journal \(path) exists")
        let journal = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return journal["handlers"] as? [[String: Any]] ?? []
    }

    private func recorderStatus() throws -> [String: Any] {
        let recording = try XCTUnwrap(try service.status()["recording"] as? [String: Any], "a recording is running")
        var recorder = try XCTUnwrap(recording["recorder"] as? [String: Any])
        recorder["state"] = recording["state"]
        return recorder
    }

    private func rtmpServer() throws -> (url: String, recordDir: String) {
        guard let url = rig.rtmpURL, !url.isEmpty, let dir = rig.rtmpRecordDir, !dir.isEmpty else {
            throw RigError(description: "RK_RTMP_URL / RK_RTMP_REC_DIR not set: run scripts/test.sh (it starts the rig's nginx-rtmp)")
        }
        return (url, dir)
    }
}
