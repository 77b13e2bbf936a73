import Foundation
import XCTest

/// End to end (docs/CONFIG.md): every `record` option comes from a profile of the config file
/// (the outputs' keys checked against their extensions' declarations), and the outputs' options
/// are the extensions' own: `--help` lists them from the catalog, an unknown one is exit 64.
final class ConfigProfileTests: EndToEndTestCase {
    /// A profile sets the area, the frame rate and its mode, no microphone, the file's path and
    /// format and an RTMP endpoint; `record --profile desk --duration 4` alone records by it:
    /// the file is Matroska at 12 fps with one audio track, and the rig's nginx-rtmp received the
    /// stream. `config show` names the profile's line for each key.
    func testARecordingTakesItsOptionsOnlyFromAProfile() throws {
        guard let url = rig.rtmpURL, !url.isEmpty, let recordDir = rig.rtmpRecordDir, !recordDir.isEmpty else {
            throw RigError(description: "RK_RTMP_URL / RK_RTMP_REC_DIR not set: run scripts/test.sh (it starts the rig's nginx-rtmp)")
        }
        let key = "testkey-cfg-\(UUID().uuidString.prefix(8).lowercased())"  // the rig's nginx takes keys starting with "testkey"
        defer { RTMPServerRecordings.remove(key, in: recordDir) }
        let out = path("from-profile.mkv")
        let env = try configHome("""
            fps = 30
            format = "mp4"

            [profiles.desk]
            fps = 12
            frame-rate-mode = "constant"
            region = "320x240+0+0"
            no-mic = true
            output = "\(out)"
            format = "mkv"
            rtmp = "\(url)/\(key)"
            """)
        let rc = try Recordctl(rig)
        let show = try ProcessRunner.run(rc.path, ["config", "show", "--profile", "desk"], environment: env, timeout: 30)
        XCTAssertEqual(show.exitCode, 0, "\(show)")
        let lines = show.stdout.split(separator: "\n").map(String.init)
        func line(_ key: String) -> String { lines.first { $0.hasPrefix(key + " =") } ?? "" }
        XCTAssertTrue(line("fps").contains("12") && line("fps").contains("profile desk") && line("fps").contains("line 5"), "\(lines)")
        XCTAssertTrue(line("format").contains("mkv") && line("format").contains("line 10"), "the profile's over the top level's: \(lines)")
        XCTAssertTrue(line("rtmp").contains("****") && !show.stdout.contains(key), "the stream key is masked: \(lines)")
        XCTAssertTrue(line("pause-on-background").contains("(default)"), "\(lines)")
        // The capture sources' keys: those the profile sets with their lines, the others with
        // their declared defaults (printed by the engine, which links the declarations), each once.
        XCTAssertTrue(line("region").contains("320x240+0+0") && line("region").contains("line 7"), "\(lines)")
        XCTAssertEqual(line("camera-position"), "camera-position = bottom-right  (default)", "\(lines)")
        XCTAssertEqual(line("mic-off"), "mic-off = false  (default)", "\(lines)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("region =") }.count, 1, "\(lines)")

        // Readable by others, a file that holds a stream key is refused, with the fix.
        let config = env["XDG_CONFIG_HOME"]! + "/recordkit/config.toml"
        chmod(config, 0o644)
        let shared = try rc.record(["--profile", "desk", "--duration", "4"], environment: env, timeout: 30)
        XCTAssertEqual(shared.exitCode, Recordctl.Exit.usage, "\(shared)")
        XCTAssertTrue(shared.stderr.contains("readable by others") && shared.stderr.contains("chmod 600"), "\(shared)")
        XCTAssertFalse((shared.stdout + shared.stderr).contains(key), "\(shared)")
        chmod(config, 0o600)

        let r = try rc.record(["--profile", "desk", "--duration", "4"], environment: env, timeout: 90)
        XCTAssertEqual(r.exitCode, Recordctl.Exit.ok, "\(r)")
        XCTAssertEqual(r.lastStdoutLine, out, "the profile's output: \(r)")
        let probe = try FFprobe.probe(out)
        XCTAssertTrue(probe.formatName.contains("matroska"), "the profile's format: \(probe)")
        let v = try XCTUnwrap(probe.video.first, "\(probe)")
        XCTAssertEqual([v.width, v.height], [320, 240], "the profile's region: \(probe)")
        XCTAssertEqual(v.averageFrameRate ?? 0, 12, accuracy: 0.5, "the profile's frame rate: \(probe)")
        let frames = try XCTUnwrap(v.frameCount, "\(probe)")
        XCTAssertEqual(Double(frames), 48, accuracy: 5, "constant frame rate: 4 s at 12 fps: \(frames)")
        XCTAssertEqual(probe.audio.count, 1, "no microphone track: \(probe)")

        let recordings = RTMPServerRecordings.wait(for: key, in: recordDir, count: 1)
        let flv = try XCTUnwrap(recordings.first, "nginx-rtmp received the profile's stream")
        let server = try FFprobe.probe(flv)
        XCTAssertEqual(server.video.map(\.codecName), ["h264"], "\(server)")
        XCTAssertEqual(server.video.first?.width, 320, "\(server)")
    }

    /// `record --help` lists every built-in output's options from the catalog; an unknown option,
    /// and a config key no extension declares, are exit 64 with a message that says what to do
    /// (the config's with its line).
    func testHelpListsTheOutputsOptionsAndMistakesAreExit64() throws {
        let rc = try Recordctl(rig)
        let help = try ProcessRunner.run(rc.path, ["record", "--help"], environment: rig.environment, timeout: 30)
        XCTAssertEqual(help.exitCode, 0, "\(help)")
        for spelling in ["--fps", "--video-codec", "-o, --output <FILE>", "--format <FORMAT>", "--no-file", "--split-every", "--rtmp <URL>",
                         "--rtmp-key-file", "--rtmp-ca-file", "--srt <URL>", "--replay-buffer <SECONDS>", "--replay-buffer-max-mb",
                         "--preview", "--preview-port",
                         // The capture sources' options, from their declarations (not recordctl's own).
                         "CAPTURE SCREEN OPTIONS", "--region <WxH+X+Y>", "--frame-rate-mode <MODE>", "CAPTURE PULSE OPTIONS", "--no-mic",
                         "--app-audio-from <NAME|PID>", "CAPTURE CAMERA OPTIONS", "--camera [<NAME>]", "--camera-position <CORNER>"] {
            XCTAssertTrue(help.stdout.contains(spelling), "\(spelling) in record --help:\n\(help.stdout)")
        }
        let unknown = try rc.record(["--duration", "1", "--frobnicate", "3"], timeout: 30)
        XCTAssertEqual(unknown.exitCode, Recordctl.Exit.usage, "\(unknown)")
        XCTAssertTrue(unknown.stderr.contains("unknown option --frobnicate") && unknown.stderr.contains("--help"), "\(unknown)")

        let env = try configHome("fps = 10\n\n[profiles.typo]\nreplay-bufer = 30\nformat = true\n")
        let check = try ProcessRunner.run(rc.path, ["config", "check"], environment: env, timeout: 30)
        XCTAssertEqual(check.exitCode, Recordctl.Exit.usage, "\(check)")
        XCTAssertTrue(check.stderr.contains("line 4: unknown key \"replay-bufer\""), "\(check)")
        XCTAssertTrue(check.stderr.contains("line 5: format must be one of mp4, mkv, not true or false"), "\(check)")
        let sourceKey = try configHome("camera-position = \"middle\"\n")
        let sourceCheck = try ProcessRunner.run(rc.path, ["config", "check"], environment: sourceKey, timeout: 30)
        XCTAssertEqual(sourceCheck.exitCode, Recordctl.Exit.usage, "\(sourceCheck)")
        XCTAssertTrue(sourceCheck.stderr.contains("line 1: camera-position 'middle': expected one of top-left"), "a source's key: \(sourceCheck)")
        let both = try rc.record(["--duration", "1", "--region", "64x64+0+0", "--window", "root"], timeout: 30)
        XCTAssertEqual(both.exitCode, Recordctl.Exit.usage, "\(both)")
        XCTAssertTrue(both.stderr.contains("--region cannot be combined with --window"), "\(both)")
        let bad = try configHome("fps = \"fast\"\n")
        let badCheck = try ProcessRunner.run(rc.path, ["config", "check"], environment: bad, timeout: 30)
        XCTAssertEqual(badCheck.exitCode, Recordctl.Exit.usage, "\(badCheck)")
        XCTAssertTrue(badCheck.stderr.contains("line 1: fps must be frames per second"), "\(badCheck)")
        let typoRecord = try rc.record(["--profile", "typo", "--duration", "1", "--output", path("never.mp4")], environment: env, timeout: 30)
        XCTAssertEqual(typoRecord.exitCode, Recordctl.Exit.usage, "\(typoRecord)")
        XCTAssertTrue(typoRecord.stderr.contains("line 4: unknown key \"replay-bufer\""), "\(typoRecord)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("never.mp4")), "nothing recorded")
    }

    private func configHome(_ text: String) throws -> [String: String] {
        let home = path("config-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(atPath: home + "/recordkit", withIntermediateDirectories: true)
        try text.write(toFile: home + "/recordkit/config.toml", atomically: true, encoding: .utf8)
        chmod(home + "/recordkit/config.toml", 0o600)  // it may hold a stream key
        var env = rig.environment
        env["XDG_CONFIG_HOME"] = home
        return env
    }
}
