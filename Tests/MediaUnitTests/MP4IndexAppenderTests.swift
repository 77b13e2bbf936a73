import Foundation
import RecordKit
@testable import RecordKitMedia
import XCTest

/// The in-place finalizer (stop in constant time): a fragmented MP4 as the file handler writes it
/// (made here by the ffmpeg CLI with the handler's `movflags`: B-frames, AAC priming, edit
/// lists) becomes `ftyp`, `mdat`, `moov` without its media moving, and decodes to exactly the
/// packets the fragmented file had.
final class MP4IndexAppenderTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "mp4index-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every packet (stream, pts, dts, size, key flag) stays; the edit lists keep their meaning
    /// (video starts at 0, the AAC priming packet is marked to discard, both streams last
    /// exactly 6 s: the ffmpeg CLI's own `-c copy` remux starts the video 21 ms late instead); the
    /// media bytes do not move, the index is last, and the file decodes and seeks without an error.
    func testFinalizingKeepsEveryPacketAndMovesNoMedia() throws {
        let path = try makeFragmented(seconds: 6, name: "a.mp4")
        let before = try packets(path, keepDiscard: false)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        let outcome = try MP4IndexAppender.finalize(path, chapters: [])
        XCTAssertFalse(outcome.wasPlain)
        XCTAssertEqual(outcome.samples, before.count, "every packet indexed")
        XCTAssertEqual(try topLevelBoxes(path), ["ftyp", "mdat", "moov"])
        assertSame(try packets(path, keepDiscard: false), before, "the same packets at the same times")
        XCTAssertEqual(try streams(path), "0,0.000000,6.000000,180\n1,0.000000,6.000000,283\n", "starts and durations")
        let priming = try XCTUnwrap(try packets(path).first { $0.hasPrefix("1,") })
        XCTAssertTrue(priming.hasPrefix("1,-1024,-1024,") && priming.contains(",KD"), "the priming packet is discarded: \(priming)")

        // The media bytes stayed where they were: all but the 16 bytes of the old header; the
        // index follows them.
        let finalized = try Data(contentsOf: URL(fileURLWithPath: path))
        let moovStart = 28
        XCTAssertEqual(finalized.prefix(moovStart), original.prefix(moovStart))
        XCTAssertEqual(finalized[(moovStart + 16)..<original.count], original[(moovStart + 16)...])
        XCTAssertEqual(finalized.count, original.count + outcome.indexBytes)
        XCTAssertLessThan(outcome.indexBytes, 64 * 1024)

        let decode = try run(["ffmpeg", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        XCTAssertEqual(decode.status, 0, decode.error)
        XCTAssertEqual(decode.error, "", "decodes without a complaint")
        // Seeking: the first frame decoded after a seek to 4 s is at 4 s (a key frame every 2 s).
        let seek = try run(["ffprobe", "-v", "error", "-read_intervals", "4%+#1", "-select_streams", "v",
                            "-show_entries", "frame=pts_time", "-of", "csv=p=0", path]).output
        XCTAssertEqual(Double(seek.split(separator: "\n").first ?? "") ?? -1, 4.0, accuracy: 0.04, seek)

        let again = try MP4IndexAppender.finalize(path, chapters: [])
        XCTAssertTrue(again.wasPlain, "finalizing twice changes nothing")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), finalized)
    }

    /// A recording cut short by a crash (its last fragment half written) finalizes to every
    /// packet whose bytes are complete.
    func testAFileCutShortKeepsItsCompletePackets() throws {
        let path = try makeFragmented(seconds: 5, name: "cut.mp4")
        let whole = try packets(path, keepDiscard: false)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        XCTAssertEqual(truncate(path, off_t(size - 20_000)), 0)
        let outcome = try MP4IndexAppender.finalize(path, chapters: [])
        XCTAssertGreaterThan(outcome.truncatedBytes, 0, "the unfinished end is cut")
        let kept = try packets(path, keepDiscard: false)
        XCTAssertGreaterThan(kept.count, whole.count / 2)
        XCTAssertLessThan(kept.count, whole.count)
        assertSame(kept, Array(whole.filter { kept.contains($0) }), "only original packets")
        let decode = try run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"])
        XCTAssertEqual(decode.status, 0, decode.error)
    }

    /// A run interrupted after the index was appended (two `moov`s) finishes the same way as
    /// an uninterrupted one, byte for byte.
    func testAnInterruptedRunFinishesTheSameWay() throws {
        let path = try makeFragmented(seconds: 3, name: "i.mp4")
        let copy = directory + "/copy.mp4"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try MP4IndexAppender.finalize(path, chapters: [])
        let finished = try Data(contentsOf: URL(fileURLWithPath: path))
        // The state between the two writes: the fragmented file plus the appended index.
        let fragmented = try Data(contentsOf: URL(fileURLWithPath: copy))
        let moovSize = try moovBoxSize(finished)
        var interrupted = fragmented
        interrupted.append(finished.suffix(moovSize))
        try interrupted.write(to: URL(fileURLWithPath: copy))
        XCTAssertEqual(try run(["ffmpeg", "-v", "error", "-i", copy, "-f", "null", "-"]).status, 0, "plays in between")
        try MP4IndexAppender.finalize(copy, chapters: [])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), finished)
    }

    /// Chapters are written as libavformat writes them (`chpl`), and read back with their titles
    /// and start times.
    func testChaptersAreWrittenIntoTheIndex() throws {
        let path = try makeFragmented(seconds: 4, name: "c.mp4")
        try MP4IndexAppender.finalize(path, chapters: [
            MediaChapter(title: "Start", start: .zero, end: .nanoseconds(1_500_000_000)),
            MediaChapter(title: "Démo", start: .nanoseconds(1_500_000_000), end: .nanoseconds(4_000_000_000)),
        ])
        let chapters = try run(["ffprobe", "-v", "error", "-show_entries", "chapter=start_time:chapter_tags=title", "-of", "csv=p=0", path]).output
        XCTAssertEqual(chapters.split(separator: "\n").map(String.init), ["0.000000,Start", "1.500000,Démo"])
    }

    /// Something that is not a fragmented MP4 is refused and left alone.
    func testANonMP4IsRefusedAndUntouched() throws {
        let path = directory + "/not.mp4"
        let text = Data("hello, this is not an mp4 file at all".utf8)
        try text.write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try MP4IndexAppender.finalize(path, chapters: [])) { error in
            XCTAssertTrue(String(describing: error).contains("not a fragmented MP4"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), text)
    }

    // MARK: - Helpers

    /// A fragmented MP4 with the file handler's `movflags`: 30 fps H.264 with B-frames (key frame
    /// every 2 s), AAC at 48 kHz, fragments at key frames and every second.
    private func makeFragmented(seconds: Int, name: String) throws -> String {
        let path = directory + "/" + name
        let made = try run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                            "-f", "lavfi", "-i", "sine=f=440:r=48000", "-t", String(seconds),
                            "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-bf", "2", "-c:a", "aac",
                            "-movflags", "+frag_keyframe+delay_moov+default_base_moof", "-frag_duration", "1000000", path])
        XCTAssertEqual(made.status, 0, made.error)
        XCTAssertTrue(try topLevelBoxes(path).contains("moof"))
        return path
    }

    /// Every packet as `stream,pts,dts,size,flags`; without `keepDiscard` the discard flag (set
    /// by a plain file's edit list, not by a fragmented file's) is left out.
    private func packets(_ path: String, keepDiscard: Bool = true) throws -> [String] {
        let probe = try run(["ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts,dts,size,flags", "-of", "csv=p=0", path])
        XCTAssertEqual(probe.status, 0, probe.error)
        return probe.output.split(separator: "\n").map { line in
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if !keepDiscard, fields.count >= 5 {
                fields[4] = fields[4].replacingOccurrences(of: "D", with: "_")
                fields = Array(fields.prefix(5))
            }
            return fields.joined(separator: ",")
        }
    }

    /// Equal lists, or the first difference.
    private func assertSame(_ a: [String], _ b: [String], _ what: String, line: UInt = #line) {
        guard a != b else { return }
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        XCTFail("\(what): \(a.count) vs \(b.count) packets; first difference at \(index): "
                + "\(index < a.count ? a[index] : "-") vs \(index < b.count ? b[index] : "-")", line: line)
    }

    private func streams(_ path: String) throws -> String {
        try run(["ffprobe", "-v", "error", "-show_entries", "stream=index,start_time,duration,nb_frames", "-of", "csv=p=0", path]).output
    }

    private func topLevelBoxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var types: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1 { size = data[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) } }
            types.append(String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return types
    }

    private func moovBoxSize(_ data: Data) throws -> Int {
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if size == 1 { size = data[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) } }
            if String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self) == "moov" { return size }
            offset += size
        }
        throw NSError(domain: "no moov", code: 1)
    }

    /// Runs a tool (bounded: 120 s) and returns its status, standard output and standard error.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }
}
