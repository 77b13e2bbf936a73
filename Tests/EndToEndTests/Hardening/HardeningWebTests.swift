import Foundation
import Glibc
import XCTest

/// Hardening of the loopback web surfaces (docs/WEB.md): against a live recording with a preview (a 640×480
/// window at a constant 30 fps), no local client — with or without the token — crashes recordd,
/// wedges it, exhausts its descriptors or makes it burn a core. Each drill is bounded in time
/// and ends by checking that recordd kept its pid, its CPU and memory stayed bounded, and the
/// recording has every frame (`assertRecordingIntact`).
final class HardeningWebTests: EndToEndTestCase {
    private var service: ServiceHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        service = try ServiceHarness(rig: rig, workDir: workDir)
        addTeardownBlock { [service] in service?.shutdown() }
    }

    /// A live recording with a preview: its output, the page's port and token, recordd's pid.
    private struct Live {
        let output: String
        let port: Int
        let token: String
        let pid: Int32
        let startMiB: Double
    }

    private func startLive(_ name: String) throws -> Live {
        let w = try window(size: (640, 480), color: 0x203040, extraArguments: ["--square-every", "0.1", "--flash-color", "F0F0F0"])
        let output = path(name + ".mp4")
        let printed = try service.ok(["start", "--preview", "--window", w.id, "--frame-rate-mode", "constant", "--no-mic", "--output", output])
        guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("preview: http://127.0.0.1:") }),
              let tokenRange = line.range(of: "/?token=") else { throw RigError(description: "no preview URL in: \(printed)") }
        let port = Int(line[line.index(line.startIndex, offsetBy: "preview: http://127.0.0.1:".count)..<tokenRange.lowerBound]) ?? 0
        let pid = try XCTUnwrap(try service.pid())
        Thread.sleep(forTimeInterval: 1)
        return Live(output: output, port: port, token: String(line[tokenRange.upperBound...]), pid: pid, startMiB: ProcessGauge.residentMiB(pid))
    }

    /// recordd kept its pid and its memory bounded; after stop the file has every frame
    /// (constant 30 fps: at least duration × 30 − 2) and no frame was dropped on the way.
    private func assertRecordingIntact(_ live: Live, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try service.pid(), live.pid, "recordd kept its pid (it never crashed)", file: file, line: line)
        let rss = ProcessGauge.residentMiB(live.pid)
        verbose("recordd resident memory: \(live.startMiB) → \(rss) MiB")
        XCTAssertLessThan(rss, live.startMiB + 150, "recordd's memory stayed bounded", file: file, line: line)
        let status = try service.status()
        let recorder = (status["recording"] as? [String: Any])?["recorder"] as? [String: Any]
        let capture = recorder?["capture"] as? [String: Any]
        // Capture itself may drop a frame or two when other jobs hold the 2 cores, and a
        // capture thread the machine woke more than 100 ms late skips the ticks it missed
        // (`lateTicks`; a CI run lost 6 so); that is the machine, not the web surface, and the
        // file must still hold every frame captured. Both stay bounded: half a second at most.
        let losses = MachineFrameLosses(capture: capture)
        losses.assertBounded(dropped: 5, "\(capture ?? [:])", file: file, line: line)
        for handler in recorder?["handlers"] as? [[String: Any]] ?? [] where handler["name"] as? String == "file" {
            let dropped = ((handler["statistics"] as? [String: Any])?["droppedVideo"] as? NSNumber)?.intValue
            XCTAssertEqual(dropped, 0, "the file dropped no video", file: file, line: line)
        }
        try service.ok(["stop"])
        let probe = try FFprobe.probe(live.output)
        let duration = probe.video.first?.duration ?? 0
        let frames = Double(probe.video.first?.frameCount ?? 0)
        verbose("file: \(frames) frames over \(duration) s; the machine lost \(losses)")
        XCTAssertGreaterThan(duration, 3, file: file, line: line)
        XCTAssertGreaterThanOrEqual(frames, (duration * 30).rounded() - 2 - Double(losses.total), "every frame is in the file", file: file, line: line)
    }

    /// CPU seconds recordd uses over `seconds` of wall time, per second (1.0 = one core).
    private func cpuRate(_ pid: Int32, over seconds: Double) -> Double {
        let before = ProcessGauge.cpuSeconds(pid), start = Date()
        Thread.sleep(forTimeInterval: seconds)
        return (ProcessGauge.cpuSeconds(pid) - before) / Date().timeIntervalSince(start)
    }

    /// A 1 MiB request line, a 1 MiB header and 200 header fields, without the token: each
    /// answered 431 within 10 s (the parser stops at 16 KiB), and recordd is not left burning a
    /// core afterwards (FlyingFox sat at 150 % for minutes).
    func testLongLinesAndHeadersAreAnswered431AtOnceAndCostNoCPU() throws {
        let live = try startLive("long-lines")
        let baseline = cpuRate(live.pid, over: 2)
        let huge = String(repeating: "a", count: 1 << 20)
        let attacks = ["GET /\(huge) HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\r\n",
                       "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nX-Long: \(huge)\r\n\r\n",
                       "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n" + (0..<200).map { "X-\($0): y\r\n" }.joined() + "\r\n",
                       "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nCookie: " + String(repeating: "c=1; ", count: 40_000) + "\r\n\r\n"]
        for (index, attack) in attacks.enumerated() {
            let client = try HardeningWebClient(port: live.port)
            _ = client.send(Array(attack.utf8), timeout: 5)  // the server may close before taking it all
            XCTAssertEqual(client.status(timeout: 10), 431, "attack \(index) is answered 431")
        }
        let after = cpuRate(live.pid, over: 3)
        verbose("recordd CPU: \(baseline) cores before, \(after) after the long lines")
        XCTAssertLessThan(after, baseline + 0.5, "no core is left burning")
        let page = try HardeningWebClient(port: live.port)
        page.request("/status?token=\(live.token)")
        XCTAssertEqual(page.status(), 200, "the page still answers")
        try assertRecordingIntact(live)
    }

    /// 300 connections that trickle header bytes: beyond the cap (64 per client address, and all
    /// of these come from 127.0.0.1) they get 503 at once,
    /// recordd's descriptors stay bounded, the held ones get 408 when the 10 s header timeout
    /// ends, and then the page answers again.
    func testSlowlorisBeyondTheCapIsRefusedAndTimesOut() throws {
        let live = try startLive("slowloris")
        let fdsBefore = ProcessGauge.descriptors(live.pid)
        var clients: [HardeningWebClient] = []
        var refused = 0
        for _ in 0..<300 {
            guard let client = try? HardeningWebClient(port: live.port) else { refused += 1; continue }
            client.send("GET /?token=\(live.token) HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n")
            clients.append(client)
        }
        for _ in 0..<4 {
            for client in clients { client.send("X-Slow: 1\r\n", timeout: 0.2) }
            Thread.sleep(forTimeInterval: 0.5)
        }
        let fdsDuring = ProcessGauge.descriptors(live.pid)
        // Refused: a 503, or (when the client's bytes were still unread as the server closed)
        // a reset; either way, at once.
        var got503 = 0
        var held: [HardeningWebClient] = []
        for client in clients {
            let (bytes, closed) = client.read(timeout: 0.05)
            if closed || String(decoding: bytes.prefix(12), as: UTF8.self) == "HTTP/1.1 503" { got503 += 1 } else { held.append(client) }
        }
        clients = held
        verbose("slowloris: fds \(fdsBefore) → \(fdsDuring), 503 for \(got503), connect refused \(refused)")
        XCTAssertLessThanOrEqual(fdsDuring, fdsBefore + 64 + 10, "recordd's descriptors stay bounded by the cap")
        XCTAssertGreaterThanOrEqual(got503 + refused, 300 - 64 - 10, "connections over the cap are refused at once")
        // The held ones: 408 when the header timeout ends.
        var got408 = 0
        for client in clients {
            if client.status(timeout: 15) == 408 { got408 += 1 }
        }
        XCTAssertGreaterThan(got408, 50, "the held connections are answered 408")
        clients.removeAll()
        Thread.sleep(forTimeInterval: 1)
        XCTAssertLessThanOrEqual(ProcessGauge.descriptors(live.pid), fdsBefore + 5, "every descriptor is given back")
        let page = try HardeningWebClient(port: live.port)
        page.request("/status?token=\(live.token)")
        XCTAssertEqual(page.status(), 200, "the page answers again")
        try assertRecordingIntact(live)
    }

    /// Oversized, unmasked, non-UTF-8, out-of-order and absurdly long WebSocket frames on the
    /// live socket (with the token): each closed with its code; the feed forgets each viewer.
    func testMalformedAndOversizedWebSocketFramesAreClosed() throws {
        let live = try startLive("ws-frames")
        let cases: [(String, [UInt8], Int)] = [
            ("a 2 MiB frame", HardeningWebClient.frame(2, [UInt8](repeating: 7, count: 2 << 20)), 1009),
            ("a frame that declares 2^63 bytes", [0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4], 1009),
            ("5 MiB in fragments", (0..<6).flatMap { HardeningWebClient.frame($0 == 0 ? 2 : 0, [UInt8](repeating: 1, count: 900_000), fin: $0 == 5) }, 1009),
            ("an unmasked frame", HardeningWebClient.frame(1, Array("all".utf8), masked: false), 1002),
            ("text that is not UTF-8", HardeningWebClient.frame(1, [0xC3, 0x28]), 1007),
            ("a continuation first", HardeningWebClient.frame(0, [1, 2]), 1002),
            ("a reserved opcode", HardeningWebClient.frame(0xB, [1]), 1002),
        ]
        for (name, bytes, code) in cases {
            let client = try HardeningWebClient(port: live.port)
            XCTAssertEqual(client.upgrade("/live?token=\(live.token)"), 101, name)
            _ = client.send(bytes, timeout: 5)
            XCTAssertEqual(client.closeCode(timeout: 10), code, name)
            XCTAssertTrue(client.read(timeout: 10).closed, "\(name): the socket is closed")
        }
        Thread.sleep(forTimeInterval: 0.5)
        let status = try HardeningWebClient(port: live.port)
        status.request("/status?token=\(live.token)")
        let (bytes, _) = status.read(timeout: 10) { String(decoding: $0, as: UTF8.self).contains("\"recording\"") }
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\"viewers\":0"), "every viewer is gone: \(String(decoding: bytes, as: UTF8.self).suffix(400))")
        try assertRecordingIntact(live)
    }

    /// A foreign Origin on a state-changing request and on the WebSocket upgrade, and a foreign
    /// Host (DNS rebinding), even with the token: 403, and the recording goes on.
    func testForeignOriginAndHostAreRefused() throws {
        let live = try startLive("origin")
        let stop = try HardeningWebClient(port: live.port)
        stop.request("/control/stop?token=\(live.token)", method: "POST", extra: ["Origin: http://evil.example"])
        XCTAssertEqual(stop.status(), 403, "a foreign page cannot stop the recording")
        let socket = try HardeningWebClient(port: live.port)
        XCTAssertEqual(socket.upgrade("/live?token=\(live.token)", extra: ["Origin: http://evil.example"]), 403, "nor watch it")
        let rebound = try HardeningWebClient(port: live.port)
        rebound.send("GET /status?token=\(live.token) HTTP/1.1\r\nHost: evil.example:\(live.port)\r\n\r\n")
        XCTAssertEqual(rebound.status(), 403, "a rebound name is refused")
        let same = try HardeningWebClient(port: live.port)
        XCTAssertEqual(same.upgrade("/live?token=\(live.token)", extra: ["Origin: http://127.0.0.1:\(live.port)"]), 101, "the page's own origin may")
        Thread.sleep(forTimeInterval: 3)
        XCTAssertEqual((try service.status()["recording"] as? [String: Any])?["state"] as? String, "recording", "the recording goes on")
        try assertRecordingIntact(live)
    }

    /// Every Range edge case on the review page's movie (after stop): 206 for a good one, 416
    /// for every unsatisfiable or malformed one, the overflow that once killed recordd included; recordd lives.
    func testEveryRangeEdgeCaseOnTheReviewMovie() throws {
        let live = try startLive("range")
        Thread.sleep(forTimeInterval: 2)
        let pid = live.pid
        try service.ok(["stop"])
        var size = 0
        for _ in 0..<50 where size == 0 {
            let head = try HardeningWebClient(port: live.port)
            head.request("/movie?token=\(live.token)", method: "HEAD")
            let (bytes, _) = head.read(timeout: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            let text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix("HTTP/1.1 200"), let line = text.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }) {
                size = Int(line.split(separator: " ").last ?? "") ?? 0
            } else {
                usleep(100_000)
            }
        }
        XCTAssertGreaterThan(size, 0, "the movie is served for review")
        let expectations: [(String, Int)] = [("bytes=0-99", 206), ("bytes=-100", 206), ("bytes=\(size - 1)-", 206), ("bytes=0-999999999999", 206),
                                             ("bytes=9223372036854775800-", 416), ("bytes=999999999-", 416), ("bytes=\(size)-", 416),
                                             ("bytes=-5-10", 416), ("bytes=-0", 416), ("bytes=10-5", 416), ("bytes=abc", 416),
                                             ("bytes=99999999999999999999999-", 416), ("bytes=0-1,4-5", 200), ("items=0-1", 200)]
        for (range, expected) in expectations {
            let client = try HardeningWebClient(port: live.port)
            client.request("/movie?token=\(live.token)", extra: ["Range: \(range)"])
            XCTAssertEqual(client.status(), expected, range)
        }
        XCTAssertEqual(try service.pid(), pid, "recordd kept its pid")
        let probe = try FFprobe.probe(live.output)
        let duration = probe.video.first?.duration ?? 0
        XCTAssertGreaterThanOrEqual(Double(probe.video.first?.frameCount ?? 0), (duration * 30).rounded() - 2, "every frame is in the file")
    }

    /// 40 viewers at once, all reading: each gets the init segment and live fragments, the page
    /// counts 40, and the recording keeps every frame.
    func testManyViewersAllGetThePicture() throws {
        let live = try startLive("viewers")
        var viewers: [HardeningWebClient] = []
        for index in 0..<40 {
            let client = try HardeningWebClient(port: live.port)
            XCTAssertEqual(client.upgrade("/live?token=\(live.token)"), 101, "viewer \(index)")
            viewers.append(client)
        }
        var received = [Int](repeating: 0, count: viewers.count)
        let deadline = Date().addingTimeInterval(4)
        while Date() < deadline {
            for (index, viewer) in viewers.enumerated() { received[index] += viewer.read(timeout: 0.01).bytes.count }
        }
        let status = try HardeningWebClient(port: live.port)
        status.request("/status?token=\(live.token)")
        let text = String(decoding: status.read(timeout: 10) { String(decoding: $0, as: UTF8.self).contains("\"recording\"") }.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("\"viewers\":40"), "the page counts 40 viewers: \(text.suffix(300))")
        XCTAssertEqual(received.filter { $0 > 10_000 }.count, 40, "every viewer got the picture: \(received)")
        viewers.removeAll()
        try assertRecordingIntact(live)
    }
}
