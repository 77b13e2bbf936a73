import Foundation
import RecordKitBuiltins
import RecordKitCapture
import RecordKitControl
@testable import RecordKitExtensions
import RecordKitPipeline
import RecordKitService
import Synchronization
import XCTest

/// The capture sources' options come from the declarations in their own folders, like the
/// outputs' from their manifests: parsed, resolved into the source's settings, listed by
/// `--help`, taken as config keys, and applied to the recording's configuration.
final class SourceOptionTests: XCTestCase {
    private let catalog = BuiltinExtensions.catalog(environment: ["XDG_DATA_HOME": "/nonexistent"])
    private var sources: [ExtensionManifest] { CaptureSourceManifest.parseAll(CaptureSourceDeclarations.all) }

    func testEveryRegisteredDeclarationParsesAndTheCameraDeclaresItsOptions() throws {
        XCTAssertFalse(CaptureSourceDeclarations.all.isEmpty)
        for (name, json) in CaptureSourceDeclarations.all {
            XCTAssertNoThrow(try CaptureSourceManifest.parse(json, source: name), "the built-in declaration of \(name) parses")
        }
        let camera = try XCTUnwrap(sources.first { $0.name == "camera" })
        XCTAssertEqual(camera.commandLine.options.map(\.name), ["camera", "camera-position", "camera-size", "camera-off", "camera-track"])
        XCTAssertEqual(camera.commandLine.options.first?.implicitValue, "*", "--camera alone: the first camera")
    }

    func testASourcesOptionsBecomeItsSettingsBesideTheOutputsRequests() throws {
        let resolver = OptionResolver(catalog: catalog, sources: sources)
        let r = try resolver.resolve(["--camera", "--camera-position", "top-left", "-o", "x.mp4", "--camera-off"], workingDirectory: "/tmp")
        XCTAssertEqual(r.sourceSettings, ["camera": ["name": "*", "position": "top-left", "off": "true"]])
        XCTAssertEqual(r.requests.map(\.name), ["file"], "a source's option requests no output")
        XCTAssertEqual(try resolver.resolve(["--camera"]).sourceSettings["camera"]?["name"], "*", "alone at the end")
        XCTAssertEqual(try resolver.resolve(["--camera", "--camera-track"]).sourceSettings["camera"], ["name": "*", "track": "true"],
                       "--camera-track: the camera as its own track")
        XCTAssertEqual(try resolver.resolve(["--camera", "rk-test-camera", "--camera-size", "50%"]).sourceSettings["camera"],
                       ["name": "rk-test-camera", "size": "50%"])
        // The config's keys under the options' names; the command line's over them.
        let configured = [ConfiguredOption(name: "camera", value: .string(""), origin: "config file (c.toml), line 1"),
                          ConfiguredOption(name: "camera-size", value: .integer(30), origin: "config file (c.toml), line 2")]
        XCTAssertEqual(try resolver.resolve([], configured: configured).sourceSettings["camera"], ["name": "", "size": "30"])
        XCTAssertEqual(try resolver.resolve(["--camera-size", "40%"], configured: configured).sourceSettings["camera"], ["name": "", "size": "40%"])
        // Mistakes are bad_argument with what to do.
        XCTAssertThrowsError(try resolver.resolve(["--camera-position", "middle"])) { error in
            XCTAssertTrue((error as? ControlError)?.message.contains("--camera-position 'middle': expected one of top-left") == true, "\(error)")
        }
        XCTAssertThrowsError(try resolver.resolve([], configured: [ConfiguredOption(name: "camra", value: .string("x"), origin: "line 3")])) { error in
            XCTAssertTrue((error as? ControlError)?.message.contains("the capture sources' keys are region, window, monitor") == true
                          && (error as? ControlError)?.message.contains("no-mic, mic-off") == true
                          && (error as? ControlError)?.message.contains("camera, camera-position") == true, "\(error)")
        }
        // Without the sources' declarations the same words are unknown: nothing else knows them.
        XCTAssertThrowsError(try OptionResolver(catalog: catalog).resolve(["--camera"]))
    }

    func testHelpListsTheSourcesOptionsBeforeTheOutputs() {
        let text = OptionHelp.text(OptionResolver(catalog: catalog, sources: sources))
        let camera = text.range(of: "CAPTURE CAMERA OPTIONS (declared by the camera source")
        let file = text.range(of: "OUTPUT FILE OPTIONS")
        XCTAssertNotNil(camera, text)
        XCTAssertTrue(text.contains("--camera [<NAME>]"), "an optional value in brackets: \(text)")
        XCTAssertTrue(text.contains("--camera-position <CORNER>"), text)
        XCTAssertLessThan(camera?.lowerBound ?? text.endIndex, file?.lowerBound ?? text.startIndex)
    }

    /// The settings reach the recording's configuration: the camera in its corner, every source's
    /// settings for the video source's factory; `--camera-off` alone is refused.
    func testTheSettingsReachTheRecordingConfiguration() throws {
        var arguments = StartArguments()
        arguments.outputOptions = ["--camera", "--camera-position", "top-right", "--camera-size", "50"]
        let resolution = try arguments.extensionRequests(catalog: catalog)
        let configuration = try arguments.recordingConfiguration(sourceSettings: resolution.sourceSettings)
        let camera = try XCTUnwrap(configuration.camera)
        XCTAssertNil(camera.name, "the first camera")
        XCTAssertEqual(camera.placement, try CameraPlacement(position: "top-right", size: "50%"))
        XCTAssertFalse(camera.offAtStart)
        XCTAssertEqual(configuration.screen.settings["camera"]?["position"], "top-right")
        XCTAssertNil(try StartArguments().recordingConfiguration().camera, "no camera unless asked")
        arguments.outputOptions = ["--camera-off"]
        XCTAssertThrowsError(try arguments.check(builtins: BuiltinExtensions.all)) { error in
            XCTAssertEqual((error as? ControlError)?.message, "--camera-off needs --camera")
        }
    }

    /// The audio source's options: its tracks from its settings; options that exclude each other
    /// are refused when both are given, and a configured one gives way to a given one that excludes it.
    func testTheAudioSourcesOptionsChooseTheTracks() throws {
        let resolver = OptionResolver(catalog: catalog, sources: sources)
        let given = try resolver.resolve(["--no-app-audio", "--mic-source", "rk-mic", "--mic-off"])
        XCTAssertEqual(given.sourceSettings["pulse"], ["noAppAudio": "true", "micSource": "rk-mic", "micOff": "true"])
        var configuration = RecordingConfiguration()
        try configuration.applySourceSettings(given.sourceSettings)
        XCTAssertNil(configuration.appAudio)
        XCTAssertEqual(configuration.micAudio, .source("rk-mic"))
        XCTAssertEqual(configuration.mutedAtStart, [.audioMic])
        XCTAssertThrowsError(try resolver.resolve(["--app-audio-from", "firefox", "--app-sink", "s"])) { error in
            XCTAssertEqual((error as? ControlError)?.message, "--app-audio-from cannot be combined with --app-sink")
        }
        XCTAssertThrowsError(try resolver.resolve(["--no-mic", "--mic-off"])) { error in
            XCTAssertEqual((error as? ControlError)?.message, "--mic-off cannot be combined with --no-mic")
        }
        let sink = [ConfiguredOption(name: "app-sink", value: .string("desk"), origin: "config file (c.toml), line 4")]
        XCTAssertEqual(try resolver.resolve(["--app-audio-from", "4242"], configured: sink).sourceSettings["pulse"], ["appAudioFrom": "4242"],
                       "the config's sink gives way to the flag's application")
        var fromApp = RecordingConfiguration()
        try fromApp.applySourceSettings(["pulse": ["appAudioFrom": "4242"]])
        XCTAssertEqual(fromApp.appAudio, .application(ApplicationSelector.parse("4242")))
        let both = sink + [ConfiguredOption(name: "app-audio-from", value: .integer(7), origin: "config file (c.toml), line 5")]
        XCTAssertThrowsError(try resolver.resolve([], configured: both)) { error in
            XCTAssertTrue((error as? ControlError)?.message.contains("line 5: app-audio-from cannot be combined with app-sink (config file (c.toml), line 4)") == true, "\(error)")
        }
        let wrongType = [ConfiguredOption(name: "no-mic", value: .string("yes"), origin: "line 2")]
        XCTAssertThrowsError(try resolver.resolve([], configured: wrongType)) { error in
            XCTAssertTrue((error as? ControlError)?.message.contains("line 2: no-mic must be true or false") == true, "\(error)")
        }
        var none = RecordingConfiguration()
        XCTAssertThrowsError(try none.applySourceSettings(["pulse": ["noMic": "true", "noAppAudio": "true", "requireAudio": "true"]])) { error in
            XCTAssertEqual((error as? RecorderError)?.message, "--require-audio contradicts --no-mic --no-app-audio")
        }
        var defaults = RecordingConfiguration()
        try defaults.applySourceSettings([:])
        XCTAssertEqual(defaults.appAudio, .defaultSinkMonitor, "nothing given: both default tracks")
        XCTAssertEqual(defaults.micAudio, .defaultSource)
    }

    /// The picture's options: one area at most (a configured one gives way to another given), the
    /// cursor, the frame-rate mode (variable unless asked), a registered video source only.
    func testTheScreensOptionsChooseTheArea() throws {
        let resolver = OptionResolver(catalog: catalog, sources: sources)
        let r = try resolver.resolve(["--window", "0x1234", "--no-cursor", "--frame-rate-mode", "constant", "--source", "x11"])
        var configuration = RecordingConfiguration()
        try configuration.applySourceSettings(r.sourceSettings)
        XCTAssertEqual(configuration.screen.target, .window(WindowSelector.parse("0x1234")))
        XCTAssertFalse(configuration.screen.showsCursor)
        XCTAssertEqual(configuration.screen.frameRateMode, .constant)
        XCTAssertEqual(configuration.screen.source, "x11")
        var defaults = RecordingConfiguration()
        try defaults.applySourceSettings([:])
        XCTAssertEqual(defaults.screen.target, .screen)
        XCTAssertEqual(defaults.screen.frameRateMode, .variable, "a recording's default")
        XCTAssertNil(defaults.screen.source, "chosen by the session")
        XCTAssertThrowsError(try resolver.resolve(["--monitor", "1", "--region", "10x10+0+0"])) { error in
            XCTAssertEqual((error as? ControlError)?.message, "--monitor cannot be combined with --region")
        }
        let region = [ConfiguredOption(name: "region", value: .string("640x360+0+0"), origin: "config file (c.toml), line 1")]
        XCTAssertEqual(try resolver.resolve(["--window", "term"], configured: region).sourceSettings["screen"], ["window": "term"],
                       "the config's area gives way to the flag's")
        var unknown = RecordingConfiguration()
        XCTAssertThrowsError(try unknown.applySourceSettings(["screen": ["source": "nope"]])) { error in
            XCTAssertTrue((error as? RecorderError)?.message.hasPrefix("--source must be") == true, "\(error)")
        }
    }

    /// A new video source is its code, its declaration and one registration line: its options
    /// then reach `--help`, the resolver and, as its settings, its own factory, with nothing else
    /// changed.
    func testANewSourceRegisteredWithItsDeclarationGetsItsOptionsAsSettings() throws {
        let declaration = Array("""
            {"name": "rk-test-pattern", "version": "1.0.0", "entry": {"swiftTarget": "ExtensionsUnitTests"},
             "setup": {"colour": {"type": "string", "default": "grey"}},
             "commandLine": {"options": [{"name": "pattern-colour", "role": "setting", "type": "string", "setup": "colour",
                                          "valueName": "COLOUR", "help": "The test pattern's colour."}]}}
            """.utf8)
        let received = Mutex<[String: String]?>(nil)
        VideoSourceRegistry.register("rk-test-pattern", declaration: declaration) { (configuration: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource in
            received.withLock { $0 = configuration.settings["rk-test-pattern"] }
            throw CaptureError(.unknownSource, "a test source opens nothing")
        }
        XCTAssertTrue(OptionHelp.text(OptionResolver(catalog: catalog, sources: sources)).contains("--pattern-colour <COLOUR>"))
        var arguments = StartArguments()
        arguments.outputOptions = ["--source", "rk-test-pattern", "--pattern-colour", "red"]
        let resolution = try arguments.extensionRequests(catalog: catalog)
        let configuration = try arguments.recordingConfiguration(sourceSettings: resolution.sourceSettings)
        XCTAssertEqual(configuration.screen.source, "rk-test-pattern")
        XCTAssertThrowsError(try VideoSourceRegistry.open(configuration.screen))
        XCTAssertEqual(received.withLock { $0 }, ["colour": "red"], "the factory got its own settings")
    }

    /// A client of the older protocol sends the capture options as `start` fields: they become
    /// the same options as typed, before the client's own words, and resolve as before.
    func testAnOlderClientsCaptureFieldsBecomeTheirOptions() throws {
        let json = #"{"region": "320x240+0+0", "noCursor": false, "noMic": true, "frameRateMode": "constant", "camera": "", "monitor": null, "outputOptions": ["--no-file", "--replay-buffer", "5"]}"#
        let a = try JSONDecoder().decode(StartArguments.self, from: Data(json.utf8))
        XCTAssertEqual(a.outputOptions, ["--region", "320x240+0+0", "--frame-rate-mode", "constant", "--no-mic", "--camera", "",
                                         "--no-file", "--replay-buffer", "5"])
        let resolution = try a.extensionRequests(catalog: catalog)
        XCTAssertEqual(resolution.sourceSettings["screen"], ["region": "320x240+0+0", "frameRateMode": "constant"])
        XCTAssertEqual(resolution.sourceSettings["pulse"], ["noMic": "true"])
        XCTAssertNil(try a.recordingConfiguration(sourceSettings: resolution.sourceSettings).camera?.name, "\"\": the first camera")
        let bad = try JSONDecoder().decode(StartArguments.self, from: Data(#"{"region": "12x"}"#.utf8))
        XCTAssertThrowsError(try bad.check(builtins: BuiltinExtensions.all)) { error in
            XCTAssertEqual((error as? ControlError)?.code, .badArgument, "a malformed region is bad_argument, as before: \(error)")
        }
        XCTAssertThrowsError(try JSONDecoder().decode(StartArguments.self, from: Data(#"{"region": 5}"#.utf8)), "a wrong type is malformed")
        let again = try JSONDecoder().decode(StartArguments.self, from: JSONEncoder().encode(a))
        XCTAssertEqual(again.outputOptions, a.outputOptions, "encoded, the options travel as words only: no duplicates")
    }

    /// A source declares settings only: an option that would request or withdraw something is refused.
    func testASourceOptionThatIsNotASettingIsRefused() {
        let json = Array("""
            {"name": "test-source", "version": "1.0.0", "entry": {"swiftTarget": "RecordKitCapture"},
             "setup": {"on": {"type": "bool", "default": false}},
             "commandLine": {"options": [{"name": "test-on", "role": "request", "type": "flag", "setup": "on", "help": "On."}]}}
            """.utf8)
        XCTAssertThrowsError(try CaptureSourceManifest.parse(json, source: "test-source")) { error in
            XCTAssertTrue("\(error)".contains("a source's option is a setting"), "\(error)")
        }
    }
}
