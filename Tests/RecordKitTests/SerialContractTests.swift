import HandlerTestSupport
import XCTest
import Foundation
import Synchronization
import RecordKit
import RecordKitCapture
import RecordKitPipeline


/// The serial contract (docs/ARCHITECTURE.md): per handler, calls never overlap, are never reordered,
/// `broadcastStarted` comes first and `broadcastFinished` exactly once and last; a slow
/// handler loses video (counted) while a fast one beside it misses nothing.
final class SerialContractTests: XCTestCase {
    func testSerialContractHoldsBesideASlowHandlerUnderLoad() throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil, ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil else {
            XCTFail("DISPLAY and PULSE_SERVER must point at the test rig: run scripts/test.sh (or source rig-run/env)")
            return
        }
        let fast = CallLoggingHandler(input: HandlerInput(video: .raw(.bgr0), appAudio: .raw, micAudio: .raw))
        let encoded = CallLoggingHandler(input: HandlerInput(video: .encoded(.fileDefault), appAudio: .encoded(.standard),
                                                             micAudio: .encoded(.standard), mixedAudio: .encoded(.standard)))
        let slow = CallLoggingHandler(input: HandlerInput(video: .raw(.bgr0)), delayMicroseconds: 100_000)
        let config = RecordingConfiguration(
            screen: ScreenCaptureConfiguration(display: nil, target: .region(PixelRect(x: 0, y: 0, width: 640, height: 360)),
                                               framesPerSecond: 30, showsCursor: true))
        let recorder = Recorder(configuration: config, handlers: [
            HandlerRegistration(name: "fast", handler: fast),
            HandlerRegistration(name: "encoded", handler: encoded),
            HandlerRegistration(name: "slow", handler: slow, maxQueuedVideo: 10),
        ])

        // Load: two busy threads compete with capture and encoding for the 2 cores.
        let load = BusyThreads(count: 2)
        defer { load.stop() }

        try recorder.start()
        XCTAssertTrue(recorder.waitForFirstFrame(timeout: 3))
        Thread.sleep(forTimeInterval: 1.5)
        try recorder.pause()
        Thread.sleep(forTimeInterval: 0.5)
        try recorder.resume()
        Thread.sleep(forTimeInterval: 1.5)
        let snapshots = recorder.stop()
        XCTAssertEqual(recorder.state, .finished)

        for (name, h) in [("fast", fast), ("encoded", encoded), ("slow", slow)] {
            let calls = h.calls
            XCTAssertEqual(h.overlapCount, 0, "\(name): calls overlapped")
            XCTAssertEqual(h.reorderCount, 0, "\(name): samples of one type went back in time")
            XCTAssertEqual(calls.first, .started, "\(name): broadcastStarted must come first")
            XCTAssertEqual(calls.last, .finished, "\(name): broadcastFinished must come last")
            XCTAssertEqual(calls.filter { $0 == .finished }.count, 1, "\(name): broadcastFinished exactly once")
            XCTAssertEqual(calls.filter { $0 == .paused }.count, 1, "\(name)")
            XCTAssertEqual(calls.filter { $0 == .resumed }.count, 1, "\(name)")
            let p = calls.firstIndex(of: .paused)!, r = calls.firstIndex(of: .resumed)!
            XCTAssertLessThan(p, r, "\(name): paused before resumed")
        }
        let fastStats = snapshots.first { $0.name == "fast" }!.statistics
        let slowStats = snapshots.first { $0.name == "slow" }!.statistics
        XCTAssertEqual(fastStats.droppedVideo, 0, "the fast handler misses nothing")
        XCTAssertGreaterThan(slowStats.droppedVideo, 0, "the slow handler's drops are counted")
        // 3 s recorded at 30 fps: the fast handler got (nearly) every frame captured.
        XCTAssertGreaterThan(fast.count(.video), 80)
        XCTAssertGreaterThan(fast.count(.audioApp), 120, "about 47 blocks of 1024 frames per second")
        XCTAssertGreaterThan(fast.count(.audioMic), 120)
        XCTAssertGreaterThan(encoded.count(.video), 80)
        XCTAssertGreaterThan(encoded.count(.audioMixed), 120)
        XCTAssertEqual(recorder.status.videoEncoders, 1)
    }
}
