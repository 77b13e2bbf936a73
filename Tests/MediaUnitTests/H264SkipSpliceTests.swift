import Foundation
@testable import RecordKit
@testable import RecordKitMedia
@testable import RecordKitPipeline
import MediaTestSupport
import XCTest

/// Skip splicing (docs/ARCHITECTURE.md): the H.264 bit reader and writer, the parameter-set and slice
/// parsing, and a real libx264 stream (B-frames, B-pyramid, look-ahead) with skips spliced in,
/// muxed by the project's muxer and decoded by ffmpeg, compared picture by picture.
final class H264SkipSpliceTests: XCTestCase {
    private var scratch: MediaScratchDirectory!

    override func setUpWithError() throws { scratch = try MediaScratchDirectory() }
    override func tearDown() { scratch?.remove() }

    func testBitWriterAndReaderRoundTrip() {
        var w = H264BitWriter()
        let unsigned = [0, 1, 2, 3, 7, 8, 254, 255, 256, 8160, 65_535, 1 << 20]
        let signed = [0, 1, -1, 2, -2, 100, -100, 4095, -4096]
        for v in unsigned { w.ue(v) }
        for v in signed { w.se(v) }
        w.bits(0b1011, 4)
        w.bits(0x1234_5678, 32)
        w.bit(1)
        let written = w.bitCount
        w.trailingBits()
        XCTAssertEqual(w.bytes.count, (written + 1 + 7) / 8)
        var r = H264BitReader(w.bytes)
        for v in unsigned { XCTAssertEqual(r.ue(), v) }
        for v in signed { XCTAssertEqual(r.se(), v) }
        XCTAssertEqual(r.bits(4), 0b1011)
        XCTAssertEqual(r.bits(32), 0x1234_5678)
        XCTAssertEqual(r.bit(), 1)
        XCTAssertEqual(r.bit(), 1, "the stop bit")
        while r.remaining > 0 { XCTAssertEqual(r.bit(), 0) }
        XCTAssertNil(r.bit(), "reading past the end is nil, not a trap")
        // Exp-Golomb codes as in H.264 Table 9-2.
        var small = H264BitWriter()
        small.ue(0); small.ue(1); small.ue(2); small.ue(3)
        XCTAssertEqual(small.bytes, [0b1010_0110, 0b0100_0000])
    }

    func testEmulationPreventionRoundTrips() {
        let cases: [[UInt8]] = [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0, 0, 4], [1, 0, 0, 0, 0, 0, 1], [0, 0], [5, 0, 0, 3, 0, 0]]
        for rbsp in cases {
            let nal = H264RBSP.escaped(rbsp)
            for i in 0..<max(0, nal.count - 2) where nal[i] == 0 && nal[i + 1] == 0 {
                XCTAssertGreaterThan(nal[i + 2], 0, "no 00 00 0x with x <= 2 in \(nal)")
                if nal[i + 2] <= 3 { XCTAssertEqual(nal[i + 2], 3, "\(nal)") }
            }
            XCTAssertNotEqual(nal.last, 0, "a NAL unit never ends in 00: \(nal)")
            XCTAssertEqual(H264RBSP.unescaped(nal).prefix(rbsp.count), ArraySlice(rbsp), "\(rbsp) -> \(nal)")
        }
        XCTAssertEqual(H264RBSP.escaped([0, 0, 1]), [0, 0, 3, 1])
    }

    func testX264ParameterSetsParse() throws {
        let encoder = try makeEncoder()
        let sets = try XCTUnwrap(AVCParameterSets(avcC: encoder.format.extradata))
        let sps = try XCTUnwrap(H264SequenceParameters(unit: sets.sequenceSets[0]))
        XCTAssertEqual(sps.pictureOrderCountType, 0, "x264 with B-frames numbers pictures by POC type 0")
        XCTAssertTrue(sps.frameMacroblocksOnly)
        XCTAssertEqual(sps.widthInMacroblocks, 40)
        XCTAssertEqual(sps.heightInMapUnits, 23, "360 rows: 22.5 macroblocks, coded as 23 and cropped")
        XCTAssertEqual(sps.log2MaxPocLsb, 6)
        XCTAssertEqual(encoder.reorderDelay, 2, "veryfast: 3 B-frames with a pyramid")
        let splicer = try H264SkipSplicer(avcC: encoder.format.extradata, reorderDelay: encoder.reorderDelay)
        XCTAssertEqual(splicer.longestRun, 11)
        let spliced = try XCTUnwrap(AVCParameterSets(avcC: splicer.avcC))
        XCTAssertEqual(spliced.sequenceSets, sets.sequenceSets)
        XCTAssertEqual(spliced.pictureSets.count, 2)
        XCTAssertEqual(spliced.pictureSets.compactMap { H264PictureParameterIDs(unit: $0)?.id }, [0, 1])
    }

    /// Runs of changed and unchanged slots (and a dropped slot) through StillRunEncoder; the
    /// file muxed from it decodes without an error, has every slot once, and every skipped
    /// slot decodes to exactly the picture of the slot before it.
    func testSplicedStreamDecodesToTheRepeatedPictures() throws {
        // (slot, picture index); a picture index equal to the previous slot's is "unchanged".
        var plan: [(slot: Int64, picture: Int)] = []
        var picture = 0
        var slot: Int64 = 0
        func moving(_ n: Int) { for _ in 0..<n { picture += 1; plan.append((slot, picture)); slot += 1 } }
        func still(_ n: Int) { for _ in 0..<n { plan.append((slot, picture)); slot += 1 } }
        moving(7); still(30); moving(1); still(5); moving(9); still(70)  // crosses a key frame slot (60)
        moving(2); slot += 3; moving(4)  // three dropped slots
        still(1); moving(1); still(2); moving(5); still(13)
        let finalSlot = slot + 4  // the end lies 4 slots after the last frame
        let (mp4, encoded, skipped, skipSlots) = try spliceToFile(plan, finalSlot: finalSlot, container: "mp4")
        XCTAssertEqual(Int64(skipSlots.count), skipped)
        // Slots 60 and 120 are key frame slots inside still runs: x264 was drained and opened
        // again there, so everything before them was out when the slot after them came in.
        XCTAssertEqual(lastRestarts, 2)
        XCTAssertGreaterThanOrEqual(emittedBefore[61] ?? -1, 59, "the file is not held behind x264's look-ahead at a still key slot")
        XCTAssertGreaterThanOrEqual(emittedBefore[121] ?? -1, 119)
        let keys = try keyFrameSlots(mp4)
        XCTAssertTrue(keys.contains(60) && keys.contains(120), "key frames by time at the still slots 60, 120: \(keys)")
        XCTAssertGreaterThan(skipped, 100)
        XCTAssertLessThan(encoded, 70, "x264 gets the changed pictures and one in twelve still ones")
        try assertDecodesCleanly(mp4)
        let frames = try decodedFrames(mp4)
        XCTAssertEqual(frames.count, Int(finalSlot) + 1, "every slot once")
        // The picture each slot should show: the plan's, the last one for dropped and final slots.
        var shows: [Int] = []
        for s in 0...Int(finalSlot) {
            if let entry = plan.first(where: { $0.slot == Int64(s) }) { shows.append(entry.picture) } else { shows.append(shows.last ?? 0) }
        }
        for s in 1..<frames.count {
            if skipSlots.contains(Int64(s)) {
                XCTAssertEqual(shows[s], shows[s - 1], "slot \(s) is skipped only when its picture did not change")
                XCTAssertEqual(frames[s], frames[s - 1], "skipped slot \(s) decodes to exactly the picture before it")
            } else if shows[s] == shows[s - 1] {
                XCTAssertLessThan(meanDifference(frames[s], frames[s - 1]), 1.5, "slot \(s): the same picture fed again (refresh or key frame)")
            } else {
                XCTAssertGreaterThan(meanDifference(frames[s], frames[s - 1]), 2.5, "slot \(s) shows a new picture")
            }
        }
        // The same packets in Matroska decode the same.
        let (mkv, _, _, _) = try spliceToFile(plan, finalSlot: finalSlot, container: "matroska")
        try assertDecodesCleanly(mkv)
        XCTAssertEqual(try decodedFrames(mkv), frames)
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,dts",
                                                                  "-of", "csv=p=0", mp4])
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: ",").compactMap { Int($0) }
            guard parts.count == 2 else { continue }
            XCTAssertLessThanOrEqual(parts[1], parts[0], "dts <= pts: \(line)")
        }
    }

    /// With every slot changed, splicing hands x264 the same frames with the same types: the
    /// packets are byte for byte those of the plain encoder (POC renumbering changes nothing).
    func testMovingContentIsUnchangedBySplicing() throws {
        let plain = try makeEncoder()
        let spliced = try makeEncoder()
        let still = try StillRunEncoder(encoder: spliced)
        var a: [SampleBuffer] = []
        var b: [SampleBuffer] = []
        for slot in 0..<75 {
            let picture = try pattern(slot + 1, encoder: plain)
            try plain.encode(picture, pts: Int64(slot)) { a.append($0) }
            try still.submit(try pattern(slot + 1, encoder: spliced), slot: Int64(slot), changed: true) { b.append($0) }
        }
        try plain.finish { a.append($0) }
        try still.finish(finalSlot: 74) { b.append($0) }
        XCTAssertEqual(still.skipFrames, 0)
        XCTAssertEqual(a.count, b.count)
        for (x, y) in zip(a, b) {
            XCTAssertEqual(x.presentationTime, y.presentationTime)
            guard case .packet(let p) = x.payload, case .packet(let q) = y.payload else { return XCTFail("not packets") }
            XCTAssertEqual(Array(p.data.bytes), Array(q.data.bytes), "packet at \(x.presentationTime.value)")
            XCTAssertEqual(p.isKeyFrame, q.isKeyFrame)
        }
    }

    // MARK: helpers

    private func makeEncoder() throws -> VideoEncoder {
        try VideoEncoder(settings: .fileDefault, inputWidth: 640, inputHeight: 360, frameRate: 30, id: "splice-test")
    }

    /// A picture that differs from every other index, at the encoder's 640x360.
    private func pattern(_ index: Int, encoder: VideoEncoder) throws -> ConvertedPicture {
        try TestPictures.pattern(index, encoder: encoder, width: 640, height: 360)
    }

    private var lastRestarts: Int64 = 0
    /// The latest slot emitted before each slot was submitted.
    private var emittedBefore: [Int64: Int64] = [:]

    private func keyFrameSlots(_ path: String) throws -> [Int] {
        let (_, data, _) = try MediaProbe.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,flags",
                                                                  "-of", "csv=p=0", path])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ",")
            guard parts.count >= 2, parts[1].hasPrefix("K"), let pts = Int(parts[0]) else { return nil }
            return pts * 30 / 15360  // the MP4 video timescale
        }
    }

    private func meanDifference(_ a: Data, _ b: Data) -> Double {
        var sum = 0
        for i in 0..<min(a.count, b.count) { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(max(1, a.count))
    }

    /// Muxes StillRunEncoder's output for `plan`; returns the file, frames fed to x264, skips,
    /// and the slots of the packets that are skip pictures (their slice names the skip PPS).
    private func spliceToFile(_ plan: [(slot: Int64, picture: Int)], finalSlot: Int64,
                              container: String) throws -> (String, Int64, Int64, Set<Int64>) {
        let encoder = try makeEncoder()
        let still = try StillRunEncoder(encoder: encoder)
        let out = scratch.path + "/spliced." + (container == "mp4" ? "mp4" : "mkv")
        let muxer = try Muxer(url: out, container: container, streams: [still.format])
        var pictures: [Int: ConvertedPicture] = [:]
        var previous: Int?
        let sets = try XCTUnwrap(AVCParameterSets(avcC: still.format.extradata))
        let sps = try XCTUnwrap(H264SequenceParameters(unit: sets.sequenceSets[0]))
        var skipSlots = Set<Int64>()
        var latest: Int64 = -1
        func note(_ sample: SampleBuffer) {
            latest = max(latest, sample.presentationTime.value)
            guard case .packet(let p) = sample.payload, let units = AVCConfiguration.lengthPrefixedUnits(Array(p.data.bytes)) else { return }
            if units.contains(where: { H264SliceHeader(unit: $0, sps: sps)?.pictureParameterSetID == 1 }) {
                skipSlots.insert(sample.presentationTime.value)
            }
        }
        for entry in plan {
            if pictures[entry.picture] == nil { pictures[entry.picture] = try pattern(entry.picture, encoder: encoder) }
            let picture = try XCTUnwrap(pictures[entry.picture])
            var failure: MediaError?
            emittedBefore[entry.slot] = latest
            try still.submit(picture, slot: entry.slot, changed: entry.picture != previous) { sample in
                note(sample)
                do throws(MediaError) { try muxer.write(sample, toStream: 0) } catch { failure = error }
            }
            if let failure { throw failure }
            previous = entry.picture
        }
        var failure: MediaError?
        try still.finish(finalSlot: finalSlot) { sample in
            note(sample)
            do throws(MediaError) { try muxer.write(sample, toStream: 0) } catch { failure = error }
        }
        if let failure { throw failure }
        try muxer.finish()
        lastRestarts = still.restarts
        return (out, still.fedFrames, still.skipFrames, skipSlots)
    }

    private func assertDecodesCleanly(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (code, _, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
        XCTAssertEqual(code, 0, file: file, line: line)
        XCTAssertEqual(stderr, "", "decoding \(path) reports errors", file: file, line: line)
    }

    /// Every decoded picture (yuv420p bytes), in presentation order, one per packet (no frame rate conversion).
    private func decodedFrames(_ path: String) throws -> [Data] {
        let (code, data, stderr) = try MediaProbe.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v",
                                                                         "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        XCTAssertEqual(code, 0, stderr)
        let size = 640 * 360 * 3 / 2
        return stride(from: 0, to: data.count - size + 1, by: size).map { data.subdata(in: $0..<$0 + size) }
    }
}
