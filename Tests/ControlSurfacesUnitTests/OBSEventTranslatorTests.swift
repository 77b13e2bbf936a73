import RecordKitControl
import XCTest
@testable import RecordKitOBSWebSocket

/// The service's events as obs-websocket's: a recording's life (start, pause, resume, split,
/// save-replay, stop) becomes the Record/ReplayBuffer/Stream state changes with OBS's output states.
final class OBSEventTranslatorTests: XCTestCase {
    func event(_ kind: String, _ state: String? = nil, path: String? = nil, handler: String? = nil) -> ServiceEvent {
        ServiceEvent(kind: kind, recordingId: "r1", state: state, reason: "user", handler: handler, at: "now", path: path)
    }

    func summary(_ events: [OBSEvent]) -> [String] {
        events.map { e in "\(e.type) \(e.data?["outputState"]?.string ?? e.data?["savedReplayPath"]?.string ?? e.data?["newOutputPath"]?.string ?? "")"
            + (e.data?["outputPath"].map { " path=\($0.string ?? "null")" } ?? "") }
    }

    /// File + replay buffer: STARTING, STARTED, PAUSED, RESUMED, a part, a clip, STOPPING, and the
    /// file's STOPPED with its path once `recording-saved` came.
    func testARecordingsLifeInOBSTerms() {
        let t = OBSEventTranslator { _ in [.record, .replayBuffer] }
        var all: [String] = []
        for e in [event("state", "starting"), event("state", "recording"), event("state", "paused"), event("state", "recording"),
                  event("handler", "recording", handler: "file"), event("file-part", "recording", path: "/v/talk-001.mp4"),
                  event("replay-saved", "recording", path: "/v/clip.mp4"), event("state", "finishing"), event("state", "finished"),
                  event("recording-saved", "finished", path: "/v/talk-002.mp4")] {
            all += summary(t.translate(e))
        }
        XCTAssertEqual(all, [
            "RecordStateChanged OBS_WEBSOCKET_OUTPUT_STARTING", "ReplayBufferStateChanged OBS_WEBSOCKET_OUTPUT_STARTING",
            "RecordStateChanged OBS_WEBSOCKET_OUTPUT_STARTED", "ReplayBufferStateChanged OBS_WEBSOCKET_OUTPUT_STARTED",
            "RecordStateChanged OBS_WEBSOCKET_OUTPUT_PAUSED", "RecordStateChanged OBS_WEBSOCKET_OUTPUT_RESUMED",
            "RecordFileChanged /v/talk-002.mp4", "ReplayBufferSaved /v/clip.mp4",
            "RecordStateChanged OBS_WEBSOCKET_OUTPUT_STOPPING", "ReplayBufferStateChanged OBS_WEBSOCKET_OUTPUT_STOPPING",
            "ReplayBufferStateChanged OBS_WEBSOCKET_OUTPUT_STOPPED",
            "RecordStateChanged OBS_WEBSOCKET_OUTPUT_STOPPED path=/v/talk-002.mp4",
        ])
        XCTAssertTrue(t.translate(event("state", "starting")).allSatisfy { $0.intent == .outputs }, "output events need the Outputs subscription")
    }

    /// The service lists a recording only once it started: outputs unknown at `starting` are
    /// read at `recording`, and STARTING is said right before STARTED.
    func testOutputsUnknownAtStartingAreReadAtRecording() {
        final class Listing: @unchecked Sendable { var outputs: Set<OBSOutputKind> = [] }
        let listing = Listing()
        let t = OBSEventTranslator { _ in listing.outputs }
        XCTAssertEqual(summary(t.translate(event("state", "starting"))), [])
        listing.outputs = [.record]
        XCTAssertEqual(summary(t.translate(event("state", "recording"))),
                       ["RecordStateChanged OBS_WEBSOCKET_OUTPUT_STARTING", "RecordStateChanged OBS_WEBSOCKET_OUTPUT_STARTED"])
        XCTAssertEqual(summary(t.translate(event("state", "paused"))), ["RecordStateChanged OBS_WEBSOCKET_OUTPUT_PAUSED"])
    }

    /// A discarded stream-only recording: its stream stops at once, with no file event.
    func testADiscardedStreamStopsWithoutAFile() {
        let t = OBSEventTranslator { _ in [.stream] }
        _ = t.translate(event("state", "starting"))
        XCTAssertEqual(summary(t.translate(event("state", "discarded"))), ["StreamStateChanged OBS_WEBSOCKET_OUTPUT_STOPPED"])
        XCTAssertEqual(summary(t.translate(event("recording-saved", "discarded", path: "/x"))), [], "no file stop pending")
    }

    func testHelpers() {
        XCTAssertEqual(OBSEventTranslator.nextPart(after: "/v/talk-009.mp4"), "/v/talk-010.mp4")
        XCTAssertEqual(OBSEventTranslator.nextPart(after: "/v/my.talk-999.mkv"), "/v/my.talk-1000.mkv")
        XCTAssertEqual(OBSRecordKitRequests.timecode(3_723_045), "01:02:03.045")
        XCTAssertEqual(OBSRecordKitRequests.status(for: .notRecording), .outputNotRunning)
        XCTAssertEqual(OBSRecordKitRequests.status(for: .busy), .outputRunning)
        let settings = OBSRecordingSettings(recordDirectory: "/tmp/rec", streamURL: "rtmp://127.0.0.1/live/k", display: ":9", audioServer: nil)
        let record = settings.startArguments(for: .record)
        XCTAssertEqual(record.outputOptions.first, "--output")
        XCTAssertTrue(record.outputOptions.last?.hasPrefix("/tmp/rec/Recording ") == true)
        XCTAssertEqual(record.display, ":9")
        XCTAssertEqual(settings.startArguments(for: .replayBuffer).outputOptions, ["--no-file", "--replay-buffer", "60.0"])
        XCTAssertEqual(settings.startArguments(for: .stream).outputOptions, ["--no-file", "--rtmp", "rtmp://127.0.0.1/live/k"])
    }

    /// What the config file sets (encoding keys, uploads, hooks, capture) reaches every
    /// obs-websocket recording; the output is obs-websocket's own choice.
    func testOBSRecordingsTakeTheConfigsEncodingAndUploads() {
        var base = StartArguments()
        base.encoding = ["crf": "30", "videoCodec": "hevc"]
        base.fps = 24
        base.upload = UploadOptions(target: "s3://team/desk")
        base.uploadReplays = UploadOptions(target: "s3://team/clips")
        base.onSaved = ["echo saved"]
        let settings = OBSRecordingSettings(recordDirectory: "/tmp/rec", streamURL: "rtmp://127.0.0.1/live/k", base: base)
        let record = settings.startArguments(for: .record)
        XCTAssertEqual(record.encoding, ["crf": "30", "videoCodec": "hevc"])
        XCTAssertEqual(record.fps, 24)
        XCTAssertEqual(record.upload?.target, "s3://team/desk", "[uploads] recordings = true")
        XCTAssertEqual(record.onSaved, ["echo saved"])
        let replay = settings.startArguments(for: .replayBuffer)
        XCTAssertNil(replay.upload, "no recording file to upload")
        XCTAssertEqual(replay.uploadReplays?.target, "s3://team/clips", "[uploads] replays = true")
        XCTAssertEqual(replay.encoding["crf"], "30")
        XCTAssertNil(settings.startArguments(for: .stream).upload)
    }

    /// The live audio switches become InputMuteStateChanged of "Mic/Aux" and "Desktop Audio",
    /// for the Inputs subscription only.
    func testAudioSwitchesBecomeInputMuteStateChanged() {
        let t = OBSEventTranslator { _ in [.record] }
        let got = ["mic-off", "app-audio-off", "mic-on", "app-audio-on"].flatMap { t.translate(event($0, "recording")) }
        XCTAssertEqual(got.map { "\($0.type) \($0.data?["inputName"]?.string ?? "") \($0.data?["inputMuted"]?.bool.map(String.init) ?? "")" }, [
            "InputMuteStateChanged Mic/Aux true", "InputMuteStateChanged Desktop Audio true",
            "InputMuteStateChanged Mic/Aux false", "InputMuteStateChanged Desktop Audio false",
        ])
        XCTAssertTrue(got.allSatisfy { $0.intent == .inputs }, "input events need the Inputs subscription")
    }
}
