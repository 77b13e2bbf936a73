import Foundation
import RecordKitBuiltins
import RecordKitControl
@testable import RecordKitExtensions
import XCTest

/// The outputs' command-line options come from the extensions' manifests: the resolver turns
/// the words a client forwards into requests with only what the manifests declare.
final class OptionResolverTests: XCTestCase {
    private let resolver = OptionResolver(catalog: BuiltinExtensions.catalog(environment: ["XDG_DATA_HOME": "/nonexistent"]))

    private func requests(_ words: [String], defaults: [ConfiguredOption] = [], encoding: [String: String] = [:],
                          environment: [String: String] = [:]) throws -> [ExtensionRequest] {
        try resolver.resolve(words, configured: defaults, encoding: encoding, workingDirectory: "/home/u/clips", environment: environment).requests
    }

    private func message(_ words: [String], defaults: [ConfiguredOption] = []) -> String {
        do {
            _ = try requests(words, defaults: defaults)
            return "no error"
        } catch {
            XCTAssertEqual((error as? ControlError)?.code, .badArgument, "\(words)")
            return (error as? ControlError)?.message ?? "\(error)"
        }
    }

    func testEveryBuiltinOutputIsRequestedByItsOwnOptions() throws {
        let r = try requests(["-o", "talk.mkv", "--format", "mkv", "--split-every=60", "--rtmp", "rtmp://127.0.0.1/live/k1",
                              "--rtmp", "rtmp://127.0.0.1/live/k2", "--srt", "srt://127.0.0.1:9000", "--replay-buffer", "30",
                              "--replay-buffer-max-mb", "64", "--preview", "--preview-port", "8123"],
                             encoding: ["crf": "20", "videoCodec": "h264"])
        XCTAssertEqual(r.map(\.name), ["file", "rtmp", "rtmp", "srt", "replay-buffer", "preview"])
        XCTAssertEqual(r[0].setup["path"], "/home/u/clips/talk.mkv", "relative to the client's directory")
        XCTAssertEqual(r[0].setup["format"], "mkv")
        XCTAssertEqual(r[0].setup["splitEvery"], "60")
        XCTAssertEqual(r[0].setup["crf"], "20", "encoding reaches the file")
        XCTAssertEqual(r[1].setup["url"], "rtmp://127.0.0.1/live/k1")
        XCTAssertEqual(r[2].setup["url"], "rtmp://127.0.0.1/live/k2")
        XCTAssertEqual(r[2].setup["videoCodec"], "h264", "and each stream")
        XCTAssertEqual(r[4].setup, ["seconds": "30", "max-megabytes": "64"], "no encoding keys where the manifest takes none")
        XCTAssertEqual(r[5].setup, ["port": "8123"])
        XCTAssertEqual(try requests([]).map(\.name), ["file"], "the file by default")
        XCTAssertEqual(try requests(["--no-file", "--replay-buffer", "5"]).map(\.name), ["replay-buffer"])
    }

    func testMistakesAreClearAndNeverQuoteASecret() {
        XCTAssertTrue(message(["--frobnicate"]).contains("unknown option --frobnicate"), message(["--frobnicate"]))
        XCTAssertTrue(message(["--no-file", "--output", "a.mp4"]).contains("--no-file contradicts --output"))
        XCTAssertTrue(message(["--preview-port", "8000"]).contains("--preview-port needs --preview"))
        XCTAssertTrue(message(["--replay-buffer", "4000"]).contains("--replay-buffer must be between"))
        XCTAssertTrue(message(["--format", "avi"]).contains("expected one of mp4, mkv"))
        XCTAssertTrue(message(["--output"]).contains("--output needs a value"))
        XCTAssertTrue(message(["--overwrite=yes"]).contains("takes no value"))
        XCTAssertTrue(message(["--output", "a.mp4", "--output", "b.mp4"]).contains("given twice"))
        let keyFileMessage = message(["--rtmp", "rtmp://h/live", "--rtmp-key-file", "/nonexistent/key"])
        XCTAssertTrue(keyFileMessage.contains("--rtmp-key-file: cannot read"), keyFileMessage)
        XCTAssertFalse(message(["--rtmp", "rtmp://h/live/secretkey-42", "--rtmp", "rtmp://h/live/secretkey-42/x?y", "--bogus"])
            .contains("secretkey-42"))
    }

    func testTheCommandLineReplacesTheConfigsDefaults() throws {
        let defaults = [ConfiguredOption(name: "format", value: .string("mkv"), origin: "c.toml, line 1"),
                        ConfiguredOption(name: "rtmp-ca-file", value: .string("/etc/rk/ca.pem"), origin: "c.toml, line 2"),
                        ConfiguredOption(name: "replay-buffer", value: .integer(20), origin: "c.toml, line 3")]
        let r = try requests(["--no-file", "--rtmp", "rtmps://127.0.0.1/live/k", "--replay-buffer", "45"], defaults: defaults)
        XCTAssertEqual(r.map(\.name), ["rtmp", "replay-buffer"], "--no-file drops the config's file settings instead of contradicting them")
        XCTAssertEqual(r[0].setup["caFile"], "/etc/rk/ca.pem")
        XCTAssertEqual(r[1].setup["seconds"], "45")
        XCTAssertEqual(try requests([], defaults: defaults).map(\.name), ["file", "replay-buffer"], "the config's CA file alone requests no stream")
        XCTAssertEqual(try requests([], defaults: defaults).first?.setup["format"], "mkv")
        XCTAssertTrue(message(["--rtmp-ca-file", "/a.pem"]).contains("--rtmp-ca-file needs --rtmp"), "given on the command line, it is a mistake")
    }

    func testAConfiguredOptionsMistakeNamesItsLine() {
        func configured(_ name: String, _ value: ConfiguredOption.Value) -> String {
            message([], defaults: [ConfiguredOption(name: name, value: value, origin: "/c.toml, profile live, line 7")])
        }
        XCTAssertTrue(configured("frobnicate", .bool(true)).hasPrefix("/c.toml, profile live, line 7: unknown key \"frobnicate\""))
        XCTAssertTrue(configured("replay-buffer", .string("lots")).hasPrefix("/c.toml, profile live, line 7: replay-buffer 'lots': expected a number"))
        XCTAssertTrue(configured("overwrite", .string("yes")).hasPrefix("/c.toml, profile live, line 7: overwrite must be true or false, not a string"))
        XCTAssertTrue(configured("format", .bool(true)).contains("format must be one of mp4, mkv, not true or false"))
        XCTAssertEqual(try requests([], defaults: [ConfiguredOption(name: "rtmp", value: .list([.string("rtmp://127.0.0.1/a/k1"), .string("rtmp://127.0.0.1/a/k2")]),
                                                                    origin: "c")]).map(\.name), ["file", "rtmp", "rtmp"], "a list of endpoints")
    }

    func testAStreamKeyFromAFileOrTheEnvironmentStaysOffTheCommandLine() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rk-key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "key-from-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        XCTAssertEqual(try requests(["--no-file", "--rtmp", "rtmp://127.0.0.1/live", "--rtmp-key-file", file]).first?.setup["url"],
                       "rtmp://127.0.0.1/live/key-from-file")
        XCTAssertEqual(try requests(["--no-file", "--rtmp", "rtmp://127.0.0.1/live"], environment: ["RECORDKIT_RTMP_KEY": "env-key"]).first?.setup["url"],
                       "rtmp://127.0.0.1/live/env-key")
        chmod(file, 0o644)
        let shared = try resolver.resolve(["--no-file", "--rtmp", "rtmp://127.0.0.1/live", "--rtmp-key-file", file])
        XCTAssertTrue(shared.warnings.contains { $0.contains("can be read by other users") }, "\(shared.warnings)")
    }

    func testHelpListsEveryDeclaredOption() {
        let help = OptionHelp.text(resolver)
        for spelling in ["-o, --output <FILE>", "--format <FORMAT>", "--overwrite", "--faststart", "--split-every <SECONDS>", "--split-size <MB>",
                         "--no-file", "--rtmp <URL>", "--rtmp-key-file <FILE>", "--rtmp-ca-file <PATH>", "--srt <URL>",
                         "--replay-buffer <SECONDS>", "--replay-buffer-max-mb <MIB>", "--preview", "--preview-port <PORT>"] {
            XCTAssertTrue(help.contains(spelling), "\(spelling) in\n\(help)")
        }
    }

    func testAnOptionMustFeedADeclaredSetupKey() {
        let json = #"{"name":"x","version":"1.0.0","entry":{"executable":"run"},"input":{"video":{"format":"raw","pixelFormat":"bgr0"}},"setup":{"a":{"type":"int"}},"#
            + #""commandLine":{"options":[{"name":"x-b","role":"setting","type":"string","setup":"b","help":"h"}]}}"#
        XCTAssertThrowsError(try ExtensionManifest.parse(Array(json.utf8), file: "m.json")) { error in
            XCTAssertTrue("\(error)".contains("\"b\" is not a setup key"), "\(error)")
        }
        let typed = json.replacingOccurrences(of: #""setup":"b""#, with: #""setup":"a""#)
        XCTAssertThrowsError(try ExtensionManifest.parse(Array(typed.utf8), file: "m.json")) { error in
            XCTAssertTrue("\(error)".contains("cannot feed the int setup key"), "\(error)")
        }
    }
}
