import Foundation
import XCTest

/// The preview page's own cost (docs/PREVIEW.md, "Cost"): what it does while nobody
/// looks at it, checked in headless Chromium against the real service.
extension PreviewTests {
    /// A page in a background tab polls nothing and drops the live picture: the server counts
    /// no viewer, the page receives no fragment, and it makes no status request; brought back
    /// to the front it plays again from the next key frame.
    func testAHiddenPageDoesNoWorkAndRejoinsTheLivePictureWhenShown() throws {
        let w = try window(size: (320, 240), color: 0x20A040)
        let url = try startWithPreview(["--window", w.id, "--frame-rate-mode", "constant"])  // 30 fragments a second
        let browser = try openBrowser(url)
        XCTAssertNotNil(try browser.wait("const v = document.getElementById('video'); return v.currentTime > 0 && window.rk.frames > 10", timeout: 30),
                        "the live video plays")
        XCTAssertEqual(viewerCount(url), 1, "the server counts the page as a viewer")
        // The page's counters at each change of visibility, taken by the page itself: what it did
        // while hidden is the difference, however long the browser took to hide and show the tab.
        _ = try browser.eval("""
            window.visLog = []; document.addEventListener('visibilitychange', () =>
              window.visLog.push([document.visibilityState, window.rk.polls, window.rk.frames])); return true
            """)
        try browser.hidePage()
        var viewersWhileHidden: Int? = nil
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            viewersWhileHidden = viewerCount(url)
            if viewersWhileHidden == 0 { break }
            usleep(200_000)
        }
        XCTAssertEqual(viewersWhileHidden, 0, "hidden, the page closed its live socket: the server has no viewer")
        Thread.sleep(forTimeInterval: 3)  // 6 polls and ~90 frames, were it still at work
        XCTAssertEqual(viewerCount(url), 0, "still no viewer while hidden")
        try browser.showPage()
        let log = try XCTUnwrap(try browser.eval("return window.visLog") as? [[Any]], "the page's visibility log")
        let states = log.compactMap { $0.first as? String }
        verbose("visibility changes [state, polls, frames]: \(log)")
        XCTAssertEqual(states.first, "hidden", "the tab really was hidden")
        let counters = { (entry: [Any]) in entry.dropFirst().compactMap { ($0 as? NSNumber)?.intValue } }
        if let hidden = log.first.map(counters), let shown = log.dropFirst().first(where: { $0.first as? String == "visible" }).map(counters),
           hidden.count == 2, shown.count == 2 {
            // At most the poll in flight when it was hidden and the one made on showing.
            XCTAssertLessThanOrEqual(shown[0] - hidden[0], 2, "no status polling while hidden")
            // Fragments already on the way when the socket closed, at most; 3 s of live picture is ~90.
            XCTAssertLessThan(shown[1] - hidden[1], 20, "no live picture received while hidden")
        } else {
            XCTFail("the page logged hiding and showing with its counters: \(log)")
        }
        XCTAssertNotNil(try browser.wait("return window.rk.liveStarts >= 2 && window.rk.socket && document.getElementById('video').currentTime > 0", timeout: 30),
                        "shown again, the page rejoins the live picture")
        let frames = try browser.eval("return window.rk.frames") as? Int ?? 0
        XCTAssertNotNil(try browser.wait("return window.rk.frames > \(frames + 15)", timeout: 20), "and receives frames again")
        XCTAssertEqual(viewerCount(url), 1, "the server counts it again")
        try saveScreenshot(browser, "preview-live-after-hidden.png")
        try service.ok(["stop"])
    }

    /// A page that is behind asks for key frames only (here through the page's own function, as
    /// its check of dropped frames does): for that time the server sends it one fragment per GOP
    /// (2 s), the picture still moves on, and afterwards the page asks for every frame again.
    func testAPageThatIsBehindGetsKeyFramesOnlyThenEveryFrameAgain() throws {
        // A still window: key frames come only every GOP (a flashing one adds key frames at each
        // scene cut).
        let w = try window(size: (320, 240), color: 0x102040)
        let url = try startWithPreview(["--window", w.id, "--frame-rate-mode", "constant"])
        let browser = try openBrowser(url)
        XCTAssertNotNil(try browser.wait("return document.getElementById('video').currentTime > 0 && window.rk.frames > 30", timeout: 30),
                        "the live video plays")
        XCTAssertEqual(try browser.eval("return window.rk.askForKeyFramesOnly(6000)") as? Bool, true, "the page asks")
        var onKeyFrames: Int? = nil
        for _ in 0..<25 where onKeyFrames != 1 {
            onKeyFrames = previewStatus(url)?["viewersOnKeyFrames"] as? Int
            usleep(200_000)
        }
        XCTAssertEqual(onKeyFrames, 1, "the server sends that viewer key frames only")
        let before = try browser.eval("return [window.rk.frames, document.getElementById('video').currentTime]") as? [Double] ?? []
        Thread.sleep(forTimeInterval: 3)
        let after = try browser.eval("return [window.rk.frames, document.getElementById('video').currentTime]") as? [Double] ?? []
        verbose("frames/currentTime before \(before), 3 s later \(after)")
        if before.count == 2, after.count == 2 {
            // 3 s at 30 fps is 90 fragments; key frames every 2 s are 1-2 (+1 in flight).
            XCTAssertLessThanOrEqual(after[0] - before[0], 4, "one fragment per GOP")
            XCTAssertGreaterThan(after[1] - before[1], 0.5, "the picture still moves on (key frame to key frame)")
        }
        XCTAssertNotNil(try browser.wait("return window.rk.keyFrameOnlySeconds > 0 && window.rk.frames > \(Int(after.first ?? 0) + 30)", timeout: 20),
                        "after its 6 s the page asks for every frame again and gets them")
        XCTAssertEqual(previewStatus(url)?["viewersOnKeyFrames"] as? Int, 0, "the server sends it every frame again")
        try service.ok(["stop"])
    }

    /// `recordctl preview --open` starts the opener (and so the browser it starts) in a session
    /// of its own, at nice 10, with that session's autogroup at nice 10: a viewer yields the CPU
    /// to the recording. `xdg-open` here is a stand-in on PATH that writes down what it got.
    func testPreviewOpenStartsTheBrowserAtALowerPriorityInItsOwnSession() throws {
        let w = try window(size: (320, 240), color: 0x404040)
        let url = try startWithPreview(["--window", w.id])
        let bin = workDir + "/fake-bin", out = workDir + "/xdg-open.out"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            { echo "$1"; nice; cut -d' ' -f3 /proc/self/autogroup; echo $$; ps -o sid= -p $$ | tr -d ' '; } > \(out).tmp
            mv \(out).tmp \(out)
            """
        try script.write(toFile: bin + "/xdg-open", atomically: true, encoding: .utf8)
        chmod(bin + "/xdg-open", 0o755)
        var environment = service.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try ProcessRunner.run(service.recordctl, ["preview", "--open"], environment: environment, timeout: 30)
        XCTAssertEqual(result.exitCode, 0, "\(result)")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: out) && Date() < deadline { usleep(100_000) }
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        verbose("the opener saw \(lines)")
        XCTAssertEqual(lines.count, 5, "the opener ran")
        if lines.count == 5 {
            XCTAssertEqual(lines[0], url, "it got the page's URL as one argument")
            XCTAssertEqual(lines[1], "10", "nice 10")
            XCTAssertEqual(lines[2], "10", "its session's autogroup at nice 10")
            XCTAssertEqual(lines[3], lines[4], "a session of its own (it leads it)")
        }
        try service.ok(["stop"])
    }

    /// The `preview` part of the page's own `/status` (with the token).
    private func previewStatus(_ url: String) -> [String: Any]? {
        guard let answer = try? request(url.replacingOccurrences(of: "/?token=", with: "/status?token=")),
              answer.status == 200,
              let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else { return nil }
        return object["preview"] as? [String: Any]
    }

    /// `preview.viewers` from the page's own `/status` (with the token).
    private func viewerCount(_ url: String) -> Int? {
        previewStatus(url)?["viewers"] as? Int
    }
}
