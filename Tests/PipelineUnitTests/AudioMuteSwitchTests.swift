import XCTest
import RecordKit
@testable import RecordKitPipeline

/// The live audio switch's arithmetic: which frames of a chunk captured at a given instant are
/// silenced, for a switch that happened before, inside or after the chunk.
final class AudioMuteSwitchTests: XCTestCase {
    /// 480 frames (10 ms at 48 kHz) captured at 1 s.
    private let start: UInt64 = 1_000_000_000
    private let frames = 480

    func testUntouchedTrackHasNoSilence() {
        let s = AudioMuteSwitch(mutedAtStart: [])
        XCTAssertNil(s.silence(.audioMic, captureNs: start, frameCount: frames))
        XCTAssertFalse(s.isMuted(.audioMic))
        XCTAssertEqual(s.mutedNames, [])
    }

    func testMutedAtStartSilencesEverything() {
        let s = AudioMuteSwitch(mutedAtStart: [.audioMic])
        XCTAssertEqual(s.silence(.audioMic, captureNs: start, frameCount: frames), 0..<frames)
        XCTAssertNil(s.silence(.audioApp, captureNs: start, frameCount: frames), "only the track asked")
        XCTAssertEqual(s.mutedNames, ["audioMic"])
    }

    /// Off 5 ms into the chunk: its last 240 frames are silent; chunks captured before the
    /// switch (delivered late by PulseAudio) keep their sound; later ones are silent whole.
    func testSwitchOffInsideAChunkCutsAtTheFrame() {
        let s = AudioMuteSwitch(mutedAtStart: [])
        XCTAssertTrue(s.set(.audioMic, muted: true, atNs: start + 5_000_000))
        XCTAssertFalse(s.set(.audioMic, muted: true, atNs: start + 6_000_000), "already off: no change, no event")
        XCTAssertEqual(s.silence(.audioMic, captureNs: start, frameCount: frames), 240..<frames)
        XCTAssertNil(s.silence(.audioMic, captureNs: start - 10_000_000, frameCount: frames), "captured before the switch")
        XCTAssertEqual(s.silence(.audioMic, captureNs: start + 10_000_000, frameCount: frames), 0..<frames)
        XCTAssertTrue(s.isMuted(.audioMic))
    }

    /// On again 2.5 ms into a chunk: its first 120 frames stay silent, the rest sound.
    func testSwitchOnInsideAChunkKeepsTheEarlierFramesSilent() {
        let s = AudioMuteSwitch(mutedAtStart: [.audioApp])
        XCTAssertTrue(s.set(.audioApp, muted: false, atNs: start + 2_500_000))
        XCTAssertEqual(s.silence(.audioApp, captureNs: start, frameCount: frames), 0..<120)
        XCTAssertEqual(s.silence(.audioApp, captureNs: start - 20_000_000, frameCount: frames), 0..<frames, "captured while off")
        XCTAssertNil(s.silence(.audioApp, captureNs: start + 2_500_000, frameCount: frames))
        XCTAssertEqual(s.mutedNames, [])
    }
}
