import XCTest
import Foundation
import Synchronization
import RecordKit
import RecordKitCapture
import RecordKitPipeline

/// A handler that notes what its context announced in `broadcastStarted` and checks every
/// sample against it.
final class FormatCheckingHandler: BroadcastSampleHandler, @unchecked Sendable {
    let input: HandlerInput
    private let state = Mutex<(announced: [SampleBufferType: FormatDescription]?, samplesBeforeStart: Int,
                               mismatches: [String], counts: [SampleBufferType: Int])>((nil, 0, [], [:]))

    init(input: HandlerInput) { self.input = input }

    func broadcastStarted(setupInfo: SetupInfo, context: any BroadcastContext) throws {
        let formats = context.formats
        state.withLock { $0.announced = formats }
    }

    func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        state.withLock { s in
            guard let announced = s.announced else { s.samplesBeforeStart += 1; return }
            s.counts[type, default: 0] += 1
            if announced[type] != sampleBuffer.formatDescription { s.mismatches.append("\(type): \(sampleBuffer.formatDescription)") }
        }
    }

    func broadcastFinished() {}

    var announced: [SampleBufferType: FormatDescription]? { state.withLock { $0.announced } }
    var samplesBeforeStart: Int { state.withLock { $0.samplesBeforeStart } }
    var mismatches: [String] { state.withLock { $0.mismatches } }
    func count(_ type: SampleBufferType) -> Int { state.withLock { $0.counts[type] ?? 0 } }
}

/// Formats known at start (docs/ARCHITECTURE.md, "Decisions and why"): a handler learns every
/// stream's format in `broadcastStarted`, before any sample, and every sample carries exactly that format.
final class StreamFormatsAtStartTests: XCTestCase {
    func testAHandlerKnowsEveryStreamsFormatBeforeTheFirstSample() throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] != nil, ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil else {
            XCTFail("DISPLAY and PULSE_SERVER must point at the test rig: run scripts/test.sh (or source rig-run/env)")
            return
        }
        let encoded = FormatCheckingHandler(input: HandlerInput(video: .encoded(.fileDefault), appAudio: .encoded(.standard),
                                                                micAudio: .encoded(.standard), mixedAudio: .encoded(.standard)))
        let raw = FormatCheckingHandler(input: HandlerInput(video: .raw(.bgr0), appAudio: .raw))
        let config = RecordingConfiguration(
            screen: ScreenCaptureConfiguration(display: nil, target: .region(PixelRect(x: 0, y: 0, width: 320, height: 240)),
                                               framesPerSecond: 30, showsCursor: false))
        let recorder = Recorder(configuration: config, handlers: [
            HandlerRegistration(name: "encoded", handler: encoded), HandlerRegistration(name: "raw", handler: raw),
        ])
        try recorder.start()
        XCTAssertTrue(recorder.waitForFirstFrame(timeout: 5))
        Thread.sleep(forTimeInterval: 1.5)
        recorder.stop()

        let e = try XCTUnwrap(encoded.announced, "broadcastStarted was called")
        XCTAssertEqual(Set(e.keys), [.video, .audioApp, .audioMic, .audioMixed])
        guard case .encoded(let video)? = e[.video], case .encoded(let app)? = e[.audioApp] else {
            return XCTFail("encoded formats expected: \(e)")
        }
        XCTAssertEqual(video.codec, .h264)
        XCTAssertEqual(video.width, 320)
        XCTAssertEqual(video.height, 240)
        XCTAssertEqual(video.frameRate, 30)
        XCTAssertFalse(video.extradata.isEmpty, "the avcC global header is known at start")
        XCTAssertEqual(app.codec, .aac)
        XCTAssertEqual(app.sampleRate, 48_000)
        XCTAssertEqual(app.channels, 2)
        XCTAssertFalse(app.extradata.isEmpty, "the AudioSpecificConfig is known at start")

        let r = try XCTUnwrap(raw.announced)
        XCTAssertEqual(r[.video], .video(VideoFormat(width: 320, height: 240, pixelFormat: .bgr0)))
        XCTAssertEqual(r[.audioApp], .audio(.standard))

        for (name, h) in [("encoded", encoded), ("raw", raw)] {
            XCTAssertEqual(h.samplesBeforeStart, 0, "\(name): no sample before broadcastStarted")
            XCTAssertEqual(h.mismatches, [], "\(name): every sample has the announced format")
            XCTAssertGreaterThan(h.count(.video), 20, "\(name): video arrived")
            XCTAssertGreaterThan(h.count(.audioApp), 30, "\(name): app audio arrived")
        }
    }
}
