@testable import FileUploadExtension
import RecordKit
import XCTest

/// The file handler's hold of audio that runs ahead of the video (its split behaviour on a real
/// recording is in Tests/EndToEndTests/SplitFileTests.swift): a packet goes on once a video
/// packet presented after it arrived, or once audio more than the lead newer arrived; order kept.
final class AudioHoldTests: XCTestCase {
    private static let audio = FormatDescription.encoded(EncodedFormat(codec: .aac, timescale: 48000, extradata: []))

    /// AAC frame `index` (1024 samples at 48 kHz) on `type`.
    private static func aac(_ index: Int64, _ type: SampleBufferType = .audioApp) -> SampleBuffer {
        let pts = MediaTime(value: index * 1024, timescale: 48000)
        return SampleBuffer(type: type, presentationTime: pts, duration: MediaTime(value: 1024, timescale: 48000), formatDescription: audio,
                            payload: .packet(EncodedPacket(data: MediaBuffer(copying: [UInt8](repeating: 2, count: 10)),
                                                           decodeTime: pts, isKeyFrame: true, encoderID: "a")))
    }

    private static func times(_ samples: [SampleBuffer]) -> [Int] { samples.map { Int($0.presentationTime.value / 1024) } }

    func testAudioWaitsForVideoPresentedAfterIt() {
        var hold = AudioHold()
        let lead = AudioHold.maxLeadNs
        // Frames 0…9 (0 … 192 ms) before any video: all held.
        for i: Int64 in 0..<10 { XCTAssertEqual(hold.hold(Self.aac(i), maxLeadNs: lead).count, 0) }
        // A picture at 100 ms lets go the frames that start before it (0 … 85.3 ms), in order.
        XCTAssertEqual(Self.times(hold.videoArrived(ptsNs: 100_000_000, maxLeadNs: lead)), [0, 1, 2, 3, 4])
        // An earlier picture (B-frames come after the picture they precede) lets nothing go.
        XCTAssertEqual(hold.videoArrived(ptsNs: 66_000_000, maxLeadNs: lead).count, 0)
        // Audio behind the video goes on at once.
        var hold2 = AudioHold()
        _ = hold2.videoArrived(ptsNs: 1_000_000_000, maxLeadNs: lead)
        XCTAssertEqual(Self.times(hold2.hold(Self.aac(3), maxLeadNs: lead)), [3])
        XCTAssertEqual(Self.times(hold.releaseAll()), [5, 6, 7, 8, 9])
        XCTAssertTrue(hold.isEmpty)
    }

    func testBothTracksKeepTheirOrderAndTheLeadIsBounded() {
        var hold = AudioHold()
        var out: [SampleBuffer] = []
        // 0.6 s of two tracks and no video: what is more than 0.5 s older than the newest goes on.
        for i: Int64 in 0..<29 {
            out += hold.hold(Self.aac(i, .audioApp), maxLeadNs: AudioHold.maxLeadNs)
            out += hold.hold(Self.aac(i, .audioMic), maxLeadNs: AudioHold.maxLeadNs)
        }
        // Newest 28 * 21.33 ms = 597 ms: frames before 97 ms (0…4) went, app before mic each time.
        XCTAssertEqual(Self.times(out.filter { $0.type == .audioApp }), [0, 1, 2, 3, 4])
        XCTAssertEqual(Self.times(out.filter { $0.type == .audioMic }), [0, 1, 2, 3, 4])
        // With the longer lead near a split nothing more goes until the video comes.
        XCTAssertEqual(hold.hold(Self.aac(29), maxLeadNs: AudioHold.maxLeadNearSplitNs).count, 0)
        let rest = hold.videoArrived(ptsNs: 400_000_000, maxLeadNs: AudioHold.maxLeadNearSplitNs)
        XCTAssertEqual(Self.times(rest.filter { $0.type == .audioMic }), Array(5...18))
        XCTAssertEqual(rest.first?.type, .audioApp, "arrival order")
    }
}
