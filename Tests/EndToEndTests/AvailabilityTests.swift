import Foundation
import XCTest

/// Availability while idle (ReplayKit's `isAvailable` and
/// `screenRecorderDidChangeAvailability`): `status` says whether recording is possible and why
/// not, and `events` reports `availability-changed` when the rig's X server or PulseAudio
/// server goes away and comes back, with no recording running.
///
/// Stops and restarts the rig's servers (scripts/rig.sh x-stop/x-start, pulse-stop/pulse-start);
/// the rig is whole again when the test ends, whatever happened.
final class AvailabilityTests: EndToEndTestCase {
    /// X goes: unavailable with the display's reason; X comes back: available. Audio goes:
    /// still available, video only; audio comes back. `status` says the same at each step.
    func testAvailabilityFollowsTheDisplayAndAudioServerWhileIdle() throws {
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        defer { service.shutdown() }
        addTeardownBlock { [rig] in _ = try? Self.rigCommand(rig!, "start") }
        let idle = try service.status()
        let availability = idle["availability"] as? [String: Any]
        XCTAssertEqual(availability?["available"] as? Bool, true, "\(idle)")
        XCTAssertNil(idle["recording"])
        let text = try service.ok(["status"])
        XCTAssertTrue(text.contains("recording is possible"), text)

        let events = try service.watchEvents()
        try Self.rigCommand(rig, "x-stop")
        let xGone = events.waitFor(timeout: 20) { $0["kind"] as? String == "availability-changed" }
        XCTAssertEqual(xGone?["state"] as? String, "unavailable", "\(String(describing: xGone))")
        XCTAssertTrue((xGone?["reason"] as? String ?? "").contains("X server \(rig.display) is not running"), "\(String(describing: xGone))")
        let down = try service.ok(["status"])
        XCTAssertTrue(down.contains("recording is not possible"), down)
        let refused = try service.ctl(["start", "--region", "320x240+0+0", "--output", path("never.mp4")])
        XCTAssertEqual(refused.exitCode, 69, "start says unavailable: \(refused)")

        try Self.rigCommand(rig, "x-start")
        let xBack = events.waitFor(timeout: 20) { $0["kind"] as? String == "availability-changed" }
        XCTAssertEqual(xBack?["state"] as? String, "available", "\(String(describing: xBack))")
        XCTAssertTrue((xBack?["reason"] as? String ?? "").contains("answers"), "\(String(describing: xBack))")

        try Self.rigCommand(rig, "pulse-stop")
        let audioGone = events.waitFor(timeout: 20) { $0["kind"] as? String == "availability-changed" }
        XCTAssertEqual(audioGone?["state"] as? String, "available", "video only is still a recording")
        XCTAssertTrue((audioGone?["reason"] as? String ?? "").contains("no audio server"), "\(String(describing: audioGone))")
        XCTAssertTrue(try service.ok(["status"]).contains("video only"))
        try Self.rigCommand(rig, "pulse-start")
        let audioBack = events.waitFor(timeout: 20) { $0["kind"] as? String == "availability-changed" }
        XCTAssertTrue((audioBack?["reason"] as? String ?? "").contains("accepts connections"), "\(String(describing: audioBack))")
        _ = events.finish()
        XCTAssertTrue(try service.ok(["status"]).contains("recording is possible:"))
    }

    /// Runs `scripts/rig.sh COMMAND` on this rig.
    @discardableResult
    static func rigCommand(_ rig: Rig, _ command: String) throws -> ProcessResult {
        let r = try ProcessRunner.run("/bin/bash", [packageRoot.appendingPathComponent("scripts/rig.sh").path, command],
                                      environment: rig.environment, timeout: 60)
        XCTAssertEqual(r.exitCode, 0, "rig.sh \(command): \(r)")
        return r
    }
}
