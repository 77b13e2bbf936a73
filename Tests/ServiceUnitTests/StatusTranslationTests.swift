import Foundation
import RecordKit
import RecordKitCapture
import RecordKitControl
import RecordKitPipeline
import RecordKitService
import XCTest

/// The pipeline reports its own snapshot and the service translates it into the status wire
/// values: the JSON `recordctl status --json` shows must stay exactly what it was when the
/// pipeline filled those values itself (every field in its place, nothing added or lost).
final class StatusTranslationTests: XCTestCase {
    private func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]  // the service's encoding (LineConnection)
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func testASnapshotBecomesTheSameStatusJSONAsBefore() throws {
        var counters = ScreenCaptureStatistics(captured: 300, droppedPoolExhausted: 2, lateTicks: 3)
        counters.grabs = 40
        counters.grabbedPixels = 50_000
        counters.damagedPixels = 45_000
        counters.unchangedTicks = 250
        counters.repeatedFrames = 251
        counters.lateChanges = 7  // not on the wire
        counters.damageTracking = true
        var capture = CaptureSnapshot()
        capture.counters = counters
        capture.frameRateMode = .variable
        capture.framesDropped = 5
        capture.fps = 29.5
        capture.width = 640
        capture.height = 480
        capture.conversions = 41
        capture.convertedRows = 4321
        capture.encodedFrames = 60
        capture.skippedFrames = 12
        capture.audioTracks = [.audioApp, .audioMic]
        capture.audioOffsetMs = ["audioApp": 1.5, "audioMic": -2]
        capture.audioLevelsDb = ["audioApp": -20, "audioMic": -100]
        capture.audioMuted = ["audioMic"]
        var counts = HandlerCounts()
        counts.delivered = 400
        counts.bytesDelivered = 123_456
        counts.droppedVideo = 30
        counts.droppedAudio = 60  // not on the wire
        counts.queued = 4
        counts.queueHighWater = 90
        let snapshot = RecordingSnapshot(
            state: .paused, pauseReason: "user", recordedSeconds: 10.25, pausedSeconds: 2.5, capture: capture,
            handlers: [HandlerRunReport(name: "rtmp", state: .running, error: nil, serviceInfo: ["state": "live", "url": "rtmp://127.0.0.1/live/****"],
                                        statistics: counts),
                       HandlerRunReport(name: "file", state: .failed, error: "disk full", serviceInfo: [:], statistics: HandlerCounts())],
            warnings: ["no microphone"], videoEncoders: 1, audioEncoders: 3)

        XCTAssertEqual(try json(RecorderStatus(snapshot)), #"""
            {"audioEncoders":3,"capture":{"audioLevelsDb":{"audioApp":-20,"audioMic":-100},"audioMuted":["audioMic"],"audioOffsetMs":{"audioApp":1.5,"audioMic":-2},"audioTracks":["audioApp","audioMic"],"damage":{"conversions":41,"convertedRows":4321,"damagedPixels":45000,"encodedFrames":60,"frameRateMode":"variable","grabbedPixels":50000,"grabs":40,"repeatedFrames":251,"skippedFrames":12,"tracking":true,"unchangedTicks":250},"fps":29.5,"framesCaptured":300,"framesDropped":5,"height":480,"lateTicks":3,"width":640},"handlers":[{"name":"rtmp","serviceInfo":{"state":"live","url":"rtmp://127.0.0.1/live/****"},"state":"running","statistics":{"bytesDelivered":123456,"delivered":400,"droppedVideo":30,"queueHighWater":90,"queued":4}},{"error":"disk full","name":"file","serviceInfo":{},"state":"failed","statistics":{"bytesDelivered":0,"delivered":0,"droppedVideo":0,"queueHighWater":0,"queued":0}}],"pauseReason":"user","pausedSeconds":2.5,"recordedSeconds":10.25,"state":"paused","videoEncoders":1,"warnings":["no microphone"]}
            """#)
    }

    func testBeforeCaptureStartsTheStatusHasNoDamageCounters() throws {
        let snapshot = RecordingSnapshot(state: .starting, pauseReason: nil, recordedSeconds: 0, pausedSeconds: 0, capture: CaptureSnapshot(),
                                         handlers: [], warnings: [], videoEncoders: 0, audioEncoders: 0)
        XCTAssertEqual(try json(RecorderStatus(snapshot)), #"""
            {"audioEncoders":0,"capture":{"audioOffsetMs":{},"audioTracks":[],"fps":0,"framesCaptured":0,"framesDropped":0,"height":0,"lateTicks":0,"width":0},"handlers":[],"pausedSeconds":0,"recordedSeconds":0,"state":"starting","videoEncoders":0,"warnings":[]}
            """#)
    }
}
