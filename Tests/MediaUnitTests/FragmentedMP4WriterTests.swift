import Foundation
import RecordKit
import RecordKitMedia
import MediaTestSupport
import XCTest

/// The live preview's fragmented-MP4 writer (docs/PREVIEW.md) on real encoder output.
final class FragmentedMP4WriterTests: XCTestCase {
    /// x264 with B-frames (not low-delay) holds its first frames back, so app audio reaches the
    /// writer before the first video packet, whose decode time is before its presentation. That
    /// order once made movenc abort the whole recorder ("Assertion next_dts >= 0 failed"); the
    /// writer now leaves out the audio before the first video frame. The fragments, joined
    /// after the init segment, are a movie ffprobe reads with every video frame.
    func testAudioBeforeTheFirstBFrameVideoPacketNeitherAbortsNorLosesAFrame() throws {
        let recording = try SyntheticRecording(seconds: 2)
        // In the order the encoders emit them, as the pipeline hands them to a handler.
        let samples = recording.samples.filter { $0.type == .video || $0.type == .audioApp }
        XCTAssertEqual(samples.first?.type, .audioApp, "audio comes first (the case that aborted)")
        guard case .packet(let first) = recording.samples(of: .video).first?.payload else { return XCTFail("no video") }
        XCTAssertLessThan(first.decodeTime, recording.samples(of: .video)[0].presentationTime, "B-frames: decode before presentation")

        let writer = try FragmentedMP4Writer(streams: [recording.videoFormat, recording.audioFormat])
        var bytes = writer.initSegment
        var fragments = 0
        for sample in samples {
            if let fragment = try writer.append(sample, toStream: sample.type == .video ? 0 : 1, isVideo: sample.type == .video) {
                bytes += fragment.bytes
                fragments += 1
            }
        }
        writer.close()
        XCTAssertEqual(fragments, 60, "one fragment per video frame")
        let scratch = try MediaScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/live.mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let probe = try MediaProbe.probe(path)
        XCTAssertEqual(probe.exitCode, 0, probe.stderr)
        XCTAssertEqual(probe.streams.first(where: { $0.type == "video" })?.packets, 60, "every video frame")
        // Left out: the audio that came before the first video packet and after the last one
        // (a fragment ends with a video frame).
        let firstVideo = samples.firstIndex { $0.type == .video } ?? 0, lastVideo = samples.lastIndex { $0.type == .video } ?? 0
        let expectedAudio = samples[firstVideo...lastVideo].filter { $0.type == .audioApp }.count
        XCTAssertGreaterThan(expectedAudio, 30)
        XCTAssertEqual(probe.streams.first(where: { $0.type == "audio" })?.packets, expectedAudio,
                       "every audio packet from the first video packet to the last")
    }
}
