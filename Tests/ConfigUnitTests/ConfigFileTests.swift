import RecordKitConfig
import RecordKitControl
import XCTest

/// Every `record`/`start` option has a config key, at the top level and per profile, with where
/// each value came from; every mistake names the file and its line.
final class ConfigFileTests: XCTestCase {
    private let text = """
        fps = 24
        no-mic = true
        preset = "faster"
        format = "mp4"

        [hooks]
        on-saved = "echo saved"

        [uploads]
        target = "s3://team/desk"

        [profiles.live]
        fps = 12
        frame-rate-mode = "constant"
        extensions-dir = ["/opt/rk-ext"]
        rtmp = ["rtmp://127.0.0.1/live/k1", "rtmp://127.0.0.1/live/k2"]
        replay-buffer = 30
        crf = 28

        [profiles.live.uploads]
        recordings = true
        part-size = 8
        """

    func testAProfileSetsEveryKindOfOptionOverTheTopLevel() throws {
        let file = try ConfigFile(text: text, path: "/c.toml")
        let a = try file.startArguments(profile: "live")
        XCTAssertEqual(a.fps, 12, "the profile's over the top level's")
        XCTAssertEqual(a.configuredOutputOptions.first { $0.name == "no-mic" }?.value, .bool(true),
                       "the top level's where the profile says nothing (the audio source's key, resolved by its declaration)")
        XCTAssertEqual(a.configuredOutputOptions.first { $0.name == "frame-rate-mode" }?.value, .string("constant"), "the screen's key")
        XCTAssertEqual(a.extensionsDirs, ["/opt/rk-ext"])
        XCTAssertEqual(a.onSaved, ["echo saved"], "[hooks]")
        XCTAssertEqual(a.encoding["preset"], "faster")
        XCTAssertEqual(a.encoding["crf"], "28")
        XCTAssertEqual(Set(a.configuredOutputOptions.map(\.name)), ["no-mic", "frame-rate-mode", "format", "rtmp", "replay-buffer"],
                       "the outputs' and the sources' keys go to the service")
        let rtmp = try XCTUnwrap(a.configuredOutputOptions.first { $0.name == "rtmp" })
        XCTAssertEqual(rtmp.origin, "profile live (/c.toml), line 16")
        XCTAssertEqual(rtmp.value, .list([.string("rtmp://127.0.0.1/live/k1"), .string("rtmp://127.0.0.1/live/k2")]))
        XCTAssertEqual(a.upload?.target, "s3://team/desk", "[profiles.live.uploads] recordings over [uploads]' target")
        XCTAssertEqual(a.upload?.partSizeMiB, 8)
        let plain = try file.startArguments(profile: nil)
        XCTAssertEqual(plain.fps, 24)
        XCTAssertNil(plain.upload, "the top level uploads nothing by itself")
        XCTAssertThrowsError(try file.startArguments(profile: "nope")) { XCTAssertTrue("\($0)".contains("it defines: live"), "\($0)") }
    }

    func testConfigShowNamesWhereEachValueCameFrom() throws {
        let file = try ConfigFile(text: text, path: "/c.toml")
        let lines = try file.recordingLines(profile: "live")
        func line(_ key: String) -> String { lines.first { $0.hasPrefix(key + " =") } ?? "" }
        XCTAssertEqual(line("fps"), "fps = 12  (profile live (/c.toml), line 13)")
        XCTAssertEqual(line("no-mic"), "no-mic = true  (config file (/c.toml), line 2)")
        XCTAssertEqual(line("hook-timeout"), "hook-timeout = 60  (default)")
        XCTAssertEqual(line("window"), "", "a source's key is listed when the file sets it")
        XCTAssertEqual(line("replay-buffer"), "replay-buffer = 30  (profile live (/c.toml), line 17)")
        XCTAssertEqual(line("format"), "format = mp4  (config file (/c.toml), line 4)")
        let uploads = file.uploadLines(profile: "live")
        XCTAssertTrue(uploads.contains("uploads.target = s3://team/desk  (config file (/c.toml))"), "\(uploads)")
        XCTAssertTrue(uploads.contains("uploads.recordings = true  (profile live (/c.toml), [profiles.live.uploads])"), "\(uploads)")
    }

    func testMistakesNameTheLineAndWhatToWrite() {
        let cases: [(String, String)] = [
            ("fps = 24\nfps2 = 1\nfps = \"fast\"", "not valid TOML"),
            ("\n\nfps = \"fast\"", "line 3: fps must be frames per second, a whole number from 1 to 120"),
            ("[profiles.a]\nhook-timeout = -1", "line 2: profiles.a.hook-timeout must be seconds"),
            ("[profiles.a]\npause-on-background = \"sometimes\"", "line 2: profiles.a.pause-on-background must be \"hidden\", \"unfocused\" or \"never\""),
            ("[profiles.a.uploads]\npart-size = 1", "line 2: profiles.a.uploads.part-size must be MiB"),
            ("[hooks]\ntimeout = -1", "line 2: hooks.timeout must be seconds"),
            ("[metrics]\nport = 70000", "line 2: metrics.port must be a port number (1-65535)"),
            ("[metrics]\nhost = \"x\"", "line 2: unknown key \"host\" in [metrics]; known: enabled, port"),
            ("[hotkeys]\nexplode = \"Super+X\"", "line 2: unknown hotkey action \"explode\" in [hotkeys]"),
            ("[rtmp]\nca-file = \"relative.pem\"", "line 2: rtmp.ca-file must be the absolute path of a PEM file"),
            ("[recording]\nfps = 3", "line 1: unknown table [recording]"),
            ("crf = \"best\"", "line 1: crf must be a whole number"),
        ]
        for (text, says) in cases {
            XCTAssertThrowsError(try ConfigFile(text: text, path: "/c.toml"), text) { error in
                XCTAssertTrue("\(error)".contains(says), "\(text): \(error)")
            }
        }
    }

    func testAFileThatHoldsAStreamKeyIsRefusedWhenOthersCanReadIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rk-config-\(UUID().uuidString).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "[profiles.live]\nrtmp = \"rtmp://127.0.0.1/live/secret-key-5\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        XCTAssertThrowsError(try ConfigFile(path: path)) { error in
            XCTAssertTrue("\(error)".contains("readable by others (mode 644); run chmod 600"), "\(error)")
            XCTAssertTrue("\(error)".contains("line 2") && !"\(error)".contains("secret-key-5"), "\(error)")
        }
        chmod(path, 0o600)
        XCTAssertNoThrow(try ConfigFile(path: path))
        try "fps = 10\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        XCTAssertNoThrow(try ConfigFile(path: path), "no secret: any mode")
    }
}
