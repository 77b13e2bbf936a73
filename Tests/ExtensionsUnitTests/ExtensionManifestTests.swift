import RecordKitBuiltins
import FileUploadExtension
import Foundation
import RecordKit
import RecordKitExtensions
import RecordKitExtensionSDK
import RecordKitService
import RTMPUploadExtension
import ExtensionTestSupport
import XCTest

/// Manifests: the shipped ones are valid and say what their handlers do; broken ones are refused
/// with a message that names the member (the same cases agree with
/// docs/extension-manifest.schema.json); setup values are checked against the declared keys.
final class ExtensionManifestTests: XCTestCase {
    func testManifestCasesAreAcceptedOrRefusedWithTheirMessage() throws {
        let url = URL(fileURLWithPath: ExtensionFixtures.packageRoot + "/Tests/Fixtures/manifests/cases.json")
        let cases = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        XCTAssertGreaterThan(cases.count, 20)
        for c in cases {
            let why = c["why"] as? String ?? "?"
            let json = try JSONSerialization.data(withJSONObject: c["manifest"]!)
            let expected = c["error"] as? String
            do {
                _ = try ExtensionManifest.parse(Array(json), file: "m.json")
                XCTAssertNil(expected, "\(why): accepted, but should fail with \(expected ?? "")")
            } catch {
                guard let expected else { XCTFail("\(why): refused: \(error)"); continue }
                XCTAssertTrue(error.description.hasPrefix("m.json: "), "\(why): \(error)")
                XCTAssertTrue(error.description.contains(expected), "\(why): \"\(error)\" does not contain \"\(expected)\"")
            }
        }
    }

    func testJSONSyntaxErrorsSayLineAndColumn() {
        let text = "{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\",\n}\n"
        XCTAssertThrowsError(try ExtensionManifest.parse(Array(text.utf8), file: "m.json")) { error in
            XCTAssertEqual("\(error)", "m.json: not valid JSON: line 4, column 1: expected a member name in double quotes")
        }
        XCTAssertThrowsError(try ExtensionManifest.parse(Array(#"{"name": "a", "name": "b"}"#.utf8), file: "m.json")) { error in
            XCTAssertTrue("\(error)".contains("duplicate member \"name\""), "\(error)")
        }
    }

    func testShippedManifestsAreValidAndMatchTheirHandlers() throws {
        for name in ["FileUpload", "RTMPUpload", "FrameStats", "python-example"] {
            let path = ExtensionFixtures.packageRoot + "/Extensions/\(name)/manifest.json"
            XCTAssertNoThrow(try ExtensionManifest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: path), name)
        }
        let catalog = BuiltinExtensions.catalog(environment: ["XDG_DATA_HOME": "/nonexistent"])
        let file = try XCTUnwrap(catalog.entry(named: "file")?.manifest)
        XCTAssertEqual(file.input, FileUploadHandler(options: FileOutputOptions()).input, "the manifest says what the file handler asks for")
        XCTAssertEqual(file.entry, .swiftTarget("FileUploadExtension"))
        let rtmp = try XCTUnwrap(catalog.entry(named: "rtmp")?.manifest)
        XCTAssertEqual(rtmp.input, RTMPUploadHandler(options: RTMPOutputOptions(url: "rtmp://localhost/live/key")).input)
        XCTAssertEqual(rtmp.setupKey("url")?.isRequired, true)
    }

    func testSetupValuesAreCheckedAndCompletedWithDefaults() throws {
        let manifest = try ExtensionManifest.parse(Array("""
            {"name": "s", "version": "1.0.0", "entry": {"executable": "s"}, "input": {},
             "setup": {"url": {"type": "string", "required": true}, "count": {"type": "int", "default": 3},
                       "level": {"type": "double", "default": 1}, "verbose": {"type": "bool", "default": false}}}
            """.utf8), file: "m.json")
        let setup = try manifest.validatedSetup(["url": "rtmp://x", "level": "0.25", "verbose": "yes"])
        XCTAssertEqual(setup.values, ["url": "rtmp://x", "count": "3", "level": "0.25", "verbose": "true"])
        XCTAssertEqual(try manifest.validatedSetup(["url": "u", "count": "-7"]).values["count"], "-7")
        func refused(_ given: [String: String], _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try manifest.validatedSetup(given), line: line) { error in
                XCTAssertEqual((error as? ExtensionError)?.kind, .invalidSetup, line: line)
                XCTAssertEqual((error as? ExtensionError)?.message, message, line: line)
            }
        }
        refused(["url": "u", "count": "many"], "setup key 'count' of extension 's' must be an integer (int), got 'many'")
        refused(["url": "u", "count": "2.5"], "setup key 'count' of extension 's' must be an integer (int), got '2.5'")
        refused(["url": "u", "verbose": "maybe"], "setup key 'verbose' of extension 's' must be true or false (bool), got 'maybe'")
        refused(["url": "u", "level": "loud"], "setup key 'level' of extension 's' must be a number (double), got 'loud'")
        refused(["url": "u", "colour": "red"], "extension 's' has no setup key 'colour'; its keys are: count, level, url, verbose")
        refused([:], "extension 's' needs setup key 'url' (string); pass --setup url=VALUE")
    }

    func testWireMessagesRoundTrip() throws {
        let header = SampleHeader(stream: .audioMic, format: 2, presentationTime: MediaTime(value: 1024, timescale: 48_000),
                                  duration: MediaTime(value: 1024, timescale: 48_000), ref: 9, region: 1, offset: 65_536,
                                  length: 8192, detail: .pcm(frameCount: 1024, startFrame: 1024))
        let text = HostMessage.sample(header).jsonValue.serialized
        guard case .sample(let back) = try HostMessage(json: try JSONParser.parse(text)) else { return XCTFail(text) }
        XCTAssertEqual(back, header)
        // A raw frame's change info (damage-driven capture) crosses the process boundary too.
        for info in [VideoFrameInfo(frameIndex: 12, previousFrameIndex: 11, isChanged: true,
                                    dirtyRects: [PixelRect(x: 16, y: 16, width: 32, height: 32), PixelRect(x: 0, y: 1070, width: 24, height: 10)]),
                     VideoFrameInfo(frameIndex: 13, previousFrameIndex: 12, isChanged: false, dirtyRects: []),
                     VideoFrameInfo(frameIndex: 0, previousFrameIndex: nil, isChanged: true, dirtyRects: nil)] {
            let frame = SampleHeader(stream: .video, format: 1, presentationTime: MediaTime(value: 1, timescale: 30),
                                     duration: MediaTime(value: 1, timescale: 30), ref: 3, region: 1, offset: 0, length: 64,
                                     detail: .pixels(planeOffsets: [0], bytesPerRow: [16]), frameInfo: info)
            let json = HostMessage.sample(frame).jsonValue.serialized
            guard case .sample(let decoded) = try HostMessage(json: try JSONParser.parse(json)) else { return XCTFail(json) }
            XCTAssertEqual(decoded.frameInfo, info, json)
        }
        let encoded = FormatDescription.encoded(EncodedFormat(codec: .h264, timescale: 30, extradata: [1, 100, 0, 31, 255, 0xE1], width: 1920, height: 1080, frameRate: 30))
        guard case .format(7, let f) = try HostMessage(json: try JSONParser.parse(HostMessage.format(id: 7, description: encoded).jsonValue.serialized)) else {
            return XCTFail("format")
        }
        XCTAssertEqual(f, encoded)
        for message in [ExtensionMessage.done(released: [1, 2], error: nil), .done(released: [], error: BroadcastError(.invalidSetup, "nope \"quoted\" ünïcode\n")),
                        .release([5]), .publish(["path": "/tmp/x"]), .finish(BroadcastError(.outputFailed, "disk full"))] {
            XCTAssertEqual(try ExtensionMessage(json: try JSONParser.parse(message.jsonValue.serialized)), message)
        }
        let input = HandlerInput(video: .encoded(VideoEncoderSettings(preset: "fast", tune: "zerolatency", rateControl: .cbr(bitsPerSecond: 2_000_000))),
                                 appAudio: .raw, mixedAudio: .encoded(.standard))
        XCTAssertEqual(try HandlerInput(json: try JSONParser.parse(input.jsonValue.serialized), path: "input"), input)
    }

    func testJSONParserIsStrict() {
        for bad in ["{\"a\":1,}", "[1 2]", "{'a':1}", "01", "1.", "\"\\x\"", "\"a", "nul", "[1]x", "\"\u{1}\""] {
            XCTAssertThrowsError(try JSONParser.parse(bad), bad)
        }
        XCTAssertEqual(try JSONParser.parse(" {\"a\": [1, 2.5, -3e2, true, null, \"\\u00e9\\ud83d\\ude00\"]} "),
                       .object(["a": .array([.int(1), .double(2.5), .double(-300), .bool(true), .null, .string("é😀")])]))
    }
}
