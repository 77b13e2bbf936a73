import Foundation
import XCTest

/// No client can block the service. An `events` subscriber that connects and never
/// reads costs the service its own bounded queue only: commands keep answering, and once the
/// queue is full the subscriber is dropped with a final line that says why.
final class ServiceNeverBlocksTests: EndToEndTestCase {
    func testASubscriberThatNeverReadsBlocksNothingAndIsDroppedWithAReason() throws {
        let service = try ServiceHarness(rig: rig, workDir: workDir)
        defer { service.shutdown() }
        let output = path("never-blocks.mkv")
        try service.ok(["start", "--region", "320x240+0+0", "--no-mic", "--output", output])

        // The subscriber: asks for events, then never reads a byte.
        let stalled = try RawControlSocket(path: service.socketPath)
        stalled.send(#"{"v":1,"id":"ev","cmd":"events"}"#)

        // A storm of pause/resume: two events each, far more than a stalled reader can hold (the
        // subscriber's queue of 256, and what its socket holds: about 280 lines here). Not much
        // more: the subscriber that fell behind gets 15 s to read its final line, counted from the
        // overflow, and the reader below starts only after the storm and the stop. With 1,000
        // rounds the rest of the storm outlasted that grace on a slow 2-core machine (10 ms a
        // round), and the connection closed before the reason was read.
        let control = try RawControlSocket(path: service.socketPath)
        var slowest = 0.0
        for i in 0..<600 {
            for cmd in ["pause", "resume"] {
                let (reply, seconds) = control.request(cmd, id: "\(cmd)-\(i)")
                XCTAssertEqual(reply?["ok"] as? Bool, true, "\(cmd) #\(i) answered: \(String(describing: reply))")
                slowest = max(slowest, seconds)
                if reply == nil { return }
            }
        }
        // A service that waited on the stalled reader would not answer at all (its socket buffer
        // fills within the first few hundred events): any finite bound tells the two apart, and
        // a slow 2-core machine that is encoding takes its time with a pause now and then.
        print("slowest pause/resume while a subscriber stalled: \(Int(slowest * 1000)) ms")
        XCTAssertLessThan(slowest, 5.0, "pause and resume answer while a subscriber stalls")
        let (status, statusSeconds) = control.request("status", id: "status")
        XCTAssertEqual(status?["ok"] as? Bool, true)
        XCTAssertLessThan(statusSeconds, 5.0, "status answers while a subscriber stalls")
        let (stop, stopSeconds) = control.request("stop", id: "stop", timeout: 30)
        XCTAssertEqual(stop?["ok"] as? Bool, true, "\(String(describing: stop))")
        print("stop answered in \(Int(stopSeconds * 1000)) ms")
        XCTAssertLessThan(stopSeconds, 10.0, "stop answers while a subscriber stalls")

        // The stalled subscriber, reading at last: what was queued, then why it was dropped, then the end.
        var lines: [String] = []
        while let line = stalled.readLine(timeout: 15) { lines.append(line) }
        let last = try XCTUnwrap(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
                                 "the subscriber got lines, then the connection closed")
        let error = last["error"] as? [String: Any]
        XCTAssertEqual(error?["code"] as? String, "too_slow", "the final line says why: \(last)")
        XCTAssertTrue((error?["message"] as? String ?? "").contains("fell"), "\(last)")
        XCTAssertLessThan(lines.count, 2_000, "the subscriber was dropped, not fed every event")

        let probe = try FFprobe.probe(output)
        XCTAssertEqual(probe.video.count, 1, "the recording was kept")
    }
}
