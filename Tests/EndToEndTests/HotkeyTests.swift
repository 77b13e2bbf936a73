import Foundation
import XCTest

/// Hotkeys with notifications (docs/recordctl/hotkeys.md): the config file's `[hotkeys]` grabbed by recordd on the
/// rig's display, pressed with `xdotool key`; a real notification server (`dunst`) on a private
/// session bus receives what happened and where the file went (its rule script logs each one).
final class HotkeyTests: EndToEndTestCase {
    /// Super+Alt+F9 starts a recording; Super+Alt+R saves the replay (notification with the
    /// clip's path); Super+Alt+F9 stops (notification with the file's path); both files play;
    /// Super+Alt+N switches the microphone off and on (notifications, status).
    func testHotkeysDriveTheRecordingAndNotifyWhereTheFileWent() throws {
        let bus = "/tmp/rk-bus-\(UUID().uuidString.prefix(8))"  // a socket path must stay under 108 bytes
        let dbus = try RunningProcess("dbus-daemon", ["--session", "--nofork", "--address=unix:path=\(bus)"], environment: rig.environment)
        addTeardownBlock { dbus.terminate(grace: 2); _ = dbus.wait(timeout: 5, grace: 1); unlink(bus) }
        for _ in 0..<50 where !FileManager.default.fileExists(atPath: bus) { usleep(100_000) }
        let received = path("notifications.log")
        let script = path("log-notification.sh")
        try "#!/bin/sh\nprintf '%s|%s\\n' \"$2\" \"$3\" >> '\(received)'\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let dunstrc = path("dunstrc")
        try "[global]\n    timeout = 1\n[log]\n    summary = \"*\"\n    script = \(script)\n".write(toFile: dunstrc, atomically: true, encoding: .utf8)
        let busEnv = rig.environment(["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(bus)"])
        let dunst = try RunningProcess("dunst", ["-config", dunstrc], environment: busEnv)
        addTeardownBlock { dunst.terminate(grace: 2); _ = dunst.wait(timeout: 5, grace: 1) }

        let config = path("config")
        try FileManager.default.createDirectory(atPath: config + "/recordkit", withIntermediateDirectories: true)
        try "[hotkeys]\ntoggle-record = \"Super+Alt+F9\"\nsave-replay = \"Super+Alt+R\"\nmic-toggle = \"Super+Alt+N\"\n"
            .write(toFile: config + "/recordkit/config.toml", atomically: true, encoding: .utf8)
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: [
            "XDG_CONFIG_HOME": config, "XDG_VIDEOS_DIR": workDir, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(bus)"])
        defer { service.shutdown() }
        try service.ok(["status"])
        let logPath = service.stateDir + "/recordkit/recordd.log"
        XCTAssertTrue(waitUntil(10) { ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("hotkeys: grabbed") },
                      "the service grabbed its keys: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")

        try press("super+alt+F9")
        XCTAssertTrue(waitUntil(15) { ((try? service.status())?["recording"] as? [String: Any])?["state"] as? String == "recording" },
                      "Super+Alt+F9 started a recording")
        Thread.sleep(forTimeInterval: 2)
        try press("super+alt+r")
        XCTAssertTrue(waitUntil(15) { self.lines(received).contains { $0.hasPrefix("RecordKit: save-replay failed|") } },
                      "a recording without a replay buffer: the notification says why: \(lines(received))")
        try press("super+alt+F9")
        XCTAssertTrue(waitUntil(20) { self.lines(received).contains { $0.hasPrefix("Recording saved|") } }, "\(lines(received))")
        let saved = try XCTUnwrap(lines(received).first { $0.hasPrefix("Recording saved|") }?.split(separator: "|").last.map(String.init))
        XCTAssertTrue(saved.hasPrefix(workDir + "/"), "the notification names the file: \(saved)")
        XCTAssertGreaterThan(try FFprobe.probe(saved).video.first?.duration ?? 0, 1.5)
        XCTAssertTrue(lines(received).contains { $0.hasPrefix("Recording started|") }, "\(lines(received))")

        // With a replay buffer: the key saves a clip and the notification says where.
        try service.ok(["start", "--region", "320x240+0+0", "--replay-buffer", "30", "--no-file"])
        Thread.sleep(forTimeInterval: 2.5)
        try press("super+alt+r")
        XCTAssertTrue(waitUntil(15) { self.lines(received).contains { $0.hasPrefix("Replay saved|") } }, "\(lines(received))")
        let clip = try XCTUnwrap(lines(received).first { $0.hasPrefix("Replay saved|") }?.split(separator: "|").last.map(String.init))
        XCTAssertEqual(try FFprobe.probe(clip).video.count, 1, "the clip the notification names plays")

        // mic-toggle: the live microphone switch (docs/recordctl/mic.md), notified with its time.
        let muted = { ((((try? service.status())?["recording"] as? [String: Any])?["recorder"] as? [String: Any])?["capture"] as? [String: Any])?["audioMuted"] as? [String] }
        try press("super+alt+n")
        XCTAssertTrue(waitUntil(15) { self.lines(received).contains { $0.hasPrefix("Microphone off|at ") } }, "\(lines(received))")
        XCTAssertEqual(muted(), ["audioMic"], "Super+Alt+N switched the mic off")
        try press("super+alt+n")
        XCTAssertTrue(waitUntil(15) { self.lines(received).contains { $0.hasPrefix("Microphone on|at ") } }, "\(lines(received))")
        XCTAssertEqual(muted(), [], "and on again")
        try service.ok(["stop"])
    }

    private func press(_ keys: String) throws {
        let r = try ProcessRunner.run("xdotool", ["key", keys], environment: rig.environment, timeout: 10)
        XCTAssertEqual(r.exitCode, 0, "xdotool key \(keys): \(r)")
    }

    private func lines(_ file: String) -> [String] {
        ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(200_000)
        }
        return condition()
    }
}
