import Foundation
import XCTest

/// Base class for end-to-end tests: the rig (failing, not skipping, when it is missing), a work
/// directory per test (under $RK_RIG_DIR/e2e, deleted when the test passes, kept when it fails),
/// and windows that are closed at teardown.
class EndToEndTestCase: XCTestCase {
    var rig: Rig!
    var workDir: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        continueAfterFailure = true
        rig = try Rig.require()
        workDir = try rig.makeWorkDirectory(for: name)
        // The cursor is recorded (by default): park it in a corner, away from what tests inspect,
        // wherever an earlier test (xdotool, a window manager action) left it.
        // The root window is black on the rig; unit tests of capture paint it: restore it.
        _ = try? ProcessRunner.run("xsetroot", ["-solid", "black"], environment: rig.environment, timeout: 10)
        _ = try? ProcessRunner.run("xdotool", ["mousemove", "\(rig.screenWidth - 2)", "\(rig.screenHeight - 2)"],
                                   environment: rig.environment, timeout: 10)
    }

    override func tearDownWithError() throws {
        if let workDir {
            // (hasSucceeded is false until the run has stopped, i.e. always, during tearDown.)
            if let run = testRun, run.totalFailureCount == 0 {
                try? FileManager.default.removeItem(atPath: workDir)
            } else {
                print("EndToEndTests: kept \(workDir) for inspection")
            }
        }
        try super.tearDownWithError()
    }

    /// A window of `color`, closed when the test ends.
    func window(size: (Int, Int) = (640, 480), position: (Int, Int) = (100, 100), color: UInt32,
                name: String? = nil, extraArguments: [String] = []) throws -> TestWindow {
        let w = try TestWindow.launch(rig, size: size, position: position, color: color,
                                      name: name ?? "rk-e2e-\(UUID().uuidString.prefix(6))",
                                      extraArguments: extraArguments)
        addTeardownBlock { w.close() }
        return w
    }

    /// Prints measurements when RK_E2E_VERBOSE=1 (to see the margins of passing checks).
    func verbose(_ message: @autoclosure () -> String) {
        if rig?.environment["RK_E2E_VERBOSE"] == "1" { print("  [\(name)] \(message())") }
    }

    func path(_ file: String) -> String { (workDir as NSString).appendingPathComponent(file) }

    // MARK: Assertions shared by the recording tests.

    /// `frame`'s `rect` shows `colour`: mean within `tolerance`, and almost every pixel close to it.
    func assertColour(_ frame: RGBFrame, _ rect: PixelRect, is colour: RGB, tolerance: Double = 10,
                      _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let mean = frame.mean(rect)
        verbose("\(what): mean of \(rect) = \(mean) (#\(mean.hex)), want #\(colour.hex)")
        XCTAssertLessThanOrEqual(mean.distance(to: colour), tolerance,
                                 "\(what): mean colour of \(rect) is \(mean) (#\(mean.hex)), want #\(colour.hex)",
                                 file: file, line: line)
        let frac = frame.fraction(of: colour, within: tolerance * 2, in: rect)
        XCTAssertGreaterThanOrEqual(frac, 0.98,
                                    "\(what): only \(Int(frac * 100)) % of \(rect) is within \(tolerance * 2) of #\(colour.hex)",
                                    file: file, line: line)
    }

    /// The recording's two audio tracks carry the rig's tones: app = 440 Hz, mic = 1000 Hz.
    func assertTones(_ path: String, _ probe: ProbeResult, analyse duration: Double? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        guard let (app, mic) = probe.appAndMicAudio else {
            XCTFail("want two audio tracks (app, mic), got: \(probe)", file: file, line: line)
            return
        }
        let candidates = [rig.appToneHz, rig.micToneHz]
        for (stream, want, label) in [(app, rig.appToneHz, "app"), (mic, rig.micToneHz, "mic")] {
            let audioIndex = probe.audio.firstIndex { $0.index == stream.index }!
            let report = try ToneAnalyzer.analyze(path, audioStream: audioIndex, candidates: candidates,
                                                  start: 0.5, duration: duration)
            verbose("\(label) track #\(stream.index): \(report)")
            XCTAssertGreaterThan(report.seconds, 0.5, "\(label) track (#\(stream.index)) decoded too little: \(report)",
                                 file: file, line: line)
            XCTAssertGreaterThan(report.rmsDBFS, -40, "\(label) track (#\(stream.index)) is (nearly) silent: \(report)",
                                 file: file, line: line)
            XCTAssertEqual(report.dominant, want, "\(label) track (#\(stream.index)) carries the wrong tone: \(report)",
                           file: file, line: line)
            XCTAssertGreaterThan(report.dominanceDB, 10,
                                 "\(label) track (#\(stream.index)) is not a clean \(Int(want)) Hz tone (the other tone leaks in?): \(report)",
                                 file: file, line: line)
        }
    }
}

/// Waiting for a foreground recording (`recordctl record`), which reports nothing while it runs.
extension EndToEndTestCase {
    /// Waits up to `timeout` seconds until `path` exists: the recording's first packets reached
    /// it, so it has begun (a loaded machine takes a second or more to get there after
    /// `recordctl record` was started). True when it did.
    func waitForRecordingFile(_ path: String, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else { return false }
            usleep(50_000)
        }
        return true
    }
}
