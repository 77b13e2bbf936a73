import Synchronization
import XCTest
import RecordKit
import RecordKitCapture
import RecordKitMedia

/// Audio gaps are filled once: the track assembler turns a gap into silence of exactly its
/// length, and the AAC encoder encodes that track as it is, adding nothing.
final class AudioGapTests: XCTestCase {
    func testAGapBecomesSilenceOfItsExactLengthOnce() throws {
        let blocks = Mutex<[SampleBuffer]>([])
        let assembler = AudioTrackAssembler(type: .audioMic) { block in blocks.withLock { $0.append(block) } }
        let tone = [Float](repeating: 0.5, count: 1024 * 2)
        // 1024 frames at 0, then 4800 frames (100 ms) missing, then 1024 frames.
        tone.withUnsafeBufferPointer { assembler.append($0, frameCount: 1024, broadcastTimeNs: 0) }
        tone.withUnsafeBufferPointer { assembler.append($0, frameCount: 1024, broadcastTimeNs: (1024 + 4800) * 1_000_000_000 / 48_000) }
        assembler.finish()

        // The track: contiguous blocks, tone, exactly 4800 frames of silence, tone.
        var frames: [Float] = []  // left channel
        var next: Int64 = 0
        for block in blocks.withLock({ $0 }) {
            guard case .pcm(let pcm) = block.payload else { return XCTFail("a block without PCM") }
            XCTAssertEqual(pcm.startFrame, next, "blocks are contiguous")
            next = pcm.startFrame + Int64(pcm.frameCount)
            let floats = pcm.buffer.bytes.bindMemory(to: Float.self)
            for i in 0..<pcm.frameCount { frames.append(floats[i * 2]) }
        }
        XCTAssertEqual(frames.count, 1024 + 4800 + 1024)
        XCTAssertTrue(frames[0..<1024].allSatisfy { $0 == 0.5 })
        XCTAssertTrue(frames[1024..<5824].allSatisfy { $0 == 0 }, "the gap is silence")
        XCTAssertTrue(frames[5824...].allSatisfy { $0 == 0.5 }, "and exactly as long as the gap")

        // Encoded, the track keeps its length: no second fill.
        let encoder = try AudioEncoder(settings: .standard, type: .audioMic, id: "gap")
        var packets: [SampleBuffer] = []
        for block in blocks.withLock({ $0 }) { try encoder.encode(block) { packets.append($0) } }
        try encoder.finish { packets.append($0) }
        let last = try XCTUnwrap(packets.last)
        XCTAssertEqual(last.presentationTime.value + last.duration.value, 6848, "ends where the track ends")
        XCTAssertEqual(packets.count, (6848 + 1023) / 1024 + 1, "the track's frames and the priming frame, nothing added")
    }
}
