import XCTest
import Foundation
import Glibc
import Synchronization
@testable import RecordKitCapture

/// Pause-on-background, proven on a real X server with a real EWMH window manager (the rig's
/// Xvfb + openbox): minimizing, restoring, focusing another window, the screen saver and
/// destroying the window each produce exactly the transition ReplayKit's model asks for.
///
/// Needs `DISPLAY` (skipped without it) with an EWMH window manager, `xdotool`, `xset`,
/// `xwininfo`, and `rk-testwindow` (built) or `ffplay` to put up test windows.
final class BackgroundMonitorTests: XCTestCase {
    /// The longest a transition may take to be reported after the action that causes it began
    /// (the tool's start included). Generous: a shared 2-core machine under load has taken over a
    /// second; the latency itself is printed (about 0.1-0.2 s on the rig under load) and is no
    /// pass mark.
    private let reportDeadline: Double = 5.0

    // MARK: Rules without X

    func testPrecedenceIsScreenLockThenHiddenThenUnfocused() {
        var all = BackgroundObservation(screenSaverOn: true, windowViewable: false, windowMinimized: true, windowActive: false)
        XCTAssertEqual(all.reason(policy: .unfocused), .screenLocked)
        XCTAssertEqual(all.reason(policy: .never), .screenLocked, "the screen lock pauses whatever the policy")
        all.screenSaverOn = false
        XCTAssertEqual(all.reason(policy: .unfocused), .windowMinimized, "minimized wins over unmapped")
        XCTAssertNil(all.reason(policy: .never))
        all.windowMinimized = false
        XCTAssertEqual(all.reason(policy: .hidden), .windowUnmapped)
        all.windowViewable = true
        XCTAssertEqual(all.reason(policy: .unfocused), .windowUnfocused)
        XCTAssertNil(all.reason(policy: .hidden), "focus only matters under policy unfocused")
        all.windowActive = nil
        XCTAssertNil(all.reason(policy: .unfocused), "unknown focus is not a reason to pause")
        XCTAssertNil(BackgroundObservation().reason(policy: .unfocused))
    }

    func testOnlyTransitionsAreReportedAndReasonChangesNeedNoForeground() {
        XCTAssertNil(BackgroundChange(from: nil, to: nil))
        XCTAssertNil(BackgroundChange(from: .windowMinimized, to: .windowMinimized))
        XCTAssertEqual(BackgroundChange(from: nil, to: .screenLocked), .background(.screenLocked))
        XCTAssertEqual(BackgroundChange(from: .windowMinimized, to: .screenLocked), .background(.screenLocked))
        XCTAssertEqual(BackgroundChange(from: .windowUnfocused, to: nil), .foreground(previous: .windowUnfocused))
    }

    func testReasonsDescribeThemselvesAndPolicyDefaultsToHidden() {
        XCTAssertEqual(BackgroundReason.windowMinimized.description, "window minimized")
        XCTAssertEqual(BackgroundReason.windowUnmapped.description, "window unmapped")
        XCTAssertEqual(BackgroundReason.windowUnfocused.description, "window unfocused")
        XCTAssertEqual(BackgroundReason.screenLocked.description, "screen locked or screen saver active")
        XCTAssertEqual(PauseOnBackgroundPolicy.default, .hidden)
        XCTAssertEqual(PauseOnBackgroundPolicy.allCases.map(\.rawValue), ["hidden", "unfocused", "never"])
    }

    // MARK: Real X server

    func testMissingWindowAndMissingDisplayAreRefusedWithTheirKind() throws {
        let display = try requireDisplay()
        XCTAssertThrowsError(try BackgroundMonitor(display: display, window: 0x7ff_fff1, policy: .hidden)) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .windowNotFound)
        }
        XCTAssertThrowsError(try BackgroundMonitor(display: ":947", window: nil, policy: .hidden)) { error in
            XCTAssertEqual((error as? CaptureError)?.kind, .noDisplay)
        }
    }

    func testMinimizingPausesAndRestoringResumes() throws {
        let display = try requireDisplay()
        let window = try TestWindow.open(display: display, test: self)
        let log = ChangeLog()
        let monitor = try BackgroundMonitor(display: display, window: window.id, policy: .hidden)
        monitor.start(onChange: log.append)
        defer { monitor.stop() }
        log.expectQuiet(for: 0.3, "a visible window is in the foreground")
        XCTAssertNil(monitor.current)

        // The window manager hides a window in two steps (its state properties, then the map
        // state), and a look between them finds the window unmapped but not (or no longer)
        // minimized: that passing reason may be reported once on the way.
        var began = try X.act(display, "xdotool", "windowminimize", window.hex)
        log.expectNext(within: reportDeadline, since: began, "minimize", passing: .background(.windowUnmapped)) {
            $0 == .background(.windowMinimized)
        }
        XCTAssertEqual(monitor.current, .windowMinimized)

        began = try X.act(display, "xdotool", "windowactivate", window.hex)
        log.expectNext(within: reportDeadline, since: began, "restore", passing: .background(.windowUnmapped)) {
            $0 == .foreground(previous: .windowMinimized) || $0 == .foreground(previous: .windowUnmapped)
        }
        XCTAssertNil(monitor.current)
        log.expectQuiet(for: 0.2, "nothing after the restore")
    }

    func testAWindowAlreadyMinimizedIsReportedAtStart() throws {
        let display = try requireDisplay()
        let window = try TestWindow.open(display: display, test: self)
        try X.run(display, "xdotool", "windowminimize", window.hex)
        try X.waitUntil("WM_STATE Iconic") { try X.output(display, "xprop", "-id", window.hex, "WM_STATE").contains("Iconic") }

        let log = ChangeLog()
        // A poll interval far longer than the wait: the report can only come from the first look.
        let monitor = try BackgroundMonitor(display: display, window: window.id, policy: .hidden, pollIntervalMs: 60_000)
        let began = ContinuousClock.now
        monitor.start(onChange: log.append)
        defer { monitor.stop() }
        log.expectNext(.background(.windowMinimized), within: 20, since: began, "first look, long before the first poll interval (60 s)")
    }

    func testAnotherWorkspaceOrAWithdrawnWindowCountsAsUnmapped() throws {
        let display = try requireDisplay()
        let window = try TestWindow.open(display: display, test: self)
        // The rig's openbox has one workspace: add a second one for the test, and restore.
        let workspaces = try X.output(display, "xdotool", "get_num_desktops").trimmingCharacters(in: .whitespacesAndNewlines)
        if let count = Int(workspaces), count < 2 {
            try X.run(display, "xdotool", "set_num_desktops", "2")
            try X.waitUntil("a second workspace") {
                try X.output(display, "xdotool", "get_num_desktops").trimmingCharacters(in: .whitespacesAndNewlines) == "2"
            }
            addTeardownBlock { try? X.run(display, "xdotool", "set_num_desktops", workspaces) }
        }
        addTeardownBlock { try? X.run(display, "xdotool", "set_desktop", "0") }
        let log = ChangeLog()
        let monitor = try BackgroundMonitor(display: display, window: window.id, policy: .hidden)
        monitor.start(onChange: log.append)
        defer { monitor.stop() }
        log.expectQuiet(for: 0.2, "visible")

        // Openbox sets WM_STATE IconicState on windows of other workspaces, without
        // _NET_WM_STATE_HIDDEN: hidden, but not minimized.
        var began = try X.act(display, "xdotool", "set_desktop", "1")
        log.expectNext(.background(.windowUnmapped), within: reportDeadline, since: began, "switched to another workspace")
        began = try X.act(display, "xdotool", "set_desktop", "0")
        log.expectNext(.foreground(previous: .windowUnmapped), within: reportDeadline, since: began, "back on its workspace")

        began = try X.act(display, "xdotool", "windowunmap", window.hex)
        log.expectNext(.background(.windowUnmapped), within: reportDeadline, since: began, "withdrawn by its client")
        began = try X.act(display, "xdotool", "windowmap", window.hex)
        log.expectNext(.foreground(previous: .windowUnmapped), within: reportDeadline, since: began, "mapped again")
        log.expectQuiet(for: 0.2, "nothing more")
    }

    func testTheFrameIdWorksLikeTheClientId() throws {
        let display = try requireDisplay()
        let window = try TestWindow.open(display: display, test: self)
        let frame = try X.topLevel(display, of: window.id)
        XCTAssertNotEqual(frame, window.id, "openbox reparents clients into frames")

        let hiddenLog = ChangeLog(), unfocusedLog = ChangeLog()
        let hidden = try BackgroundMonitor(display: display, window: frame, policy: .hidden)
        let unfocused = try BackgroundMonitor(display: display, window: frame, policy: .unfocused)
        hidden.start(onChange: hiddenLog.append)
        unfocused.start(onChange: unfocusedLog.append)
        defer { hidden.stop(); unfocused.stop() }
        unfocusedLog.expectQuiet(for: 0.3, "the frame of the active client counts as active")

        var began = try X.act(display, "xdotool", "windowminimize", window.hex)
        hiddenLog.expectNext(.background(.windowMinimized), within: reportDeadline, since: began, "minimize, watched through the frame")
        unfocusedLog.expectNext(.background(.windowMinimized), within: reportDeadline, since: began, "minimize outranks unfocused")
        began = try X.act(display, "xdotool", "windowactivate", window.hex)
        hiddenLog.expectNext(.foreground(previous: .windowMinimized), within: reportDeadline, since: began, "restore")
        // Openbox maps the window a moment before it makes it active: under policy unfocused a
        // brief background(windowUnfocused) may come between; either way it ends in the foreground.
        unfocusedLog.expectEventually(within: reportDeadline, since: began, "restore, policy unfocused") {
            if case .foreground = $0 { true } else { false }
        }
        XCTAssertNil(unfocused.current)
    }

    func testTheScreenSaverPausesEveryRecordingAndOutranksMinimized() throws {
        let display = try requireDisplay()
        addTeardownBlock { try? X.run(display, "xset", "s", "reset") }

        let screenLog = ChangeLog()
        let screen = try BackgroundMonitor(display: display, window: nil, policy: .hidden)
        screen.start(onChange: screenLog.append)
        defer { screen.stop() }
        let window = try TestWindow.open(display: display, test: self)
        let windowLog = ChangeLog()
        let recorded = try BackgroundMonitor(display: display, window: window.id, policy: .never)
        recorded.start(onChange: windowLog.append)
        defer { recorded.stop() }
        screenLog.expectQuiet(for: 0.2, "no saver yet")

        var began = try X.act(display, "xset", "s", "activate")
        screenLog.expectNext(.background(.screenLocked), within: reportDeadline, since: began, "saver on, screen recording")
        windowLog.expectNext(.background(.screenLocked), within: reportDeadline, since: began, "saver on, policy never")
        began = try X.act(display, "xset", "s", "reset")
        screenLog.expectNext(.foreground(previous: .screenLocked), within: reportDeadline, since: began, "saver off")
        windowLog.expectNext(.foreground(previous: .screenLocked), within: reportDeadline, since: began, "saver off, policy never")

        let hiddenLog = ChangeLog()
        let hidden = try BackgroundMonitor(display: display, window: window.id, policy: .hidden)
        hidden.start(onChange: hiddenLog.append)
        defer { hidden.stop() }
        began = try X.act(display, "xdotool", "windowminimize", window.hex)
        hiddenLog.expectNext(.background(.windowMinimized), within: reportDeadline, since: began, "minimize")
        let saverOn = try X.act(display, "xset", "s", "activate")
        hiddenLog.expectNext(.background(.screenLocked), within: reportDeadline, since: saverOn, "saver outranks minimized, no foreground between")
        windowLog.expectNext(.background(.screenLocked), within: reportDeadline, since: saverOn, "second saver, policy never")
        began = try X.act(display, "xset", "s", "reset")
        hiddenLog.expectNext(.background(.windowMinimized), within: reportDeadline, since: began, "back to minimized, no foreground between")
        windowLog.expectNext(.foreground(previous: .screenLocked), within: reportDeadline, since: began, "second saver off, policy never")
        windowLog.expectQuiet(for: 0.2, "policy never ignores minimizing")
    }

    func testPolicyUnfocusedPausesWhileAnotherWindowIsActive() throws {
        let display = try requireDisplay()
        let recordedWindow = try TestWindow.open(display: display, test: self, color: "2060c0")
        let otherWindow = try TestWindow.open(display: display, test: self, color: "c06020")
        try X.activate(display, recordedWindow)

        let unfocusedLog = ChangeLog(), hiddenLog = ChangeLog()
        let unfocused = try BackgroundMonitor(display: display, window: recordedWindow.id, policy: .unfocused)
        let hidden = try BackgroundMonitor(display: display, window: recordedWindow.id, policy: .hidden)
        unfocused.start(onChange: unfocusedLog.append)
        hidden.start(onChange: hiddenLog.append)
        defer { unfocused.stop(); hidden.stop() }
        unfocusedLog.expectQuiet(for: 0.3, "the recorded window is active")

        var began = try X.act(display, "xdotool", "windowactivate", otherWindow.hex)
        unfocusedLog.expectNext(.background(.windowUnfocused), within: reportDeadline, since: began, "another window activated")
        began = try X.act(display, "xdotool", "windowactivate", recordedWindow.hex)
        unfocusedLog.expectNext(.foreground(previous: .windowUnfocused), within: reportDeadline, since: began, "reactivated")
        hiddenLog.expectQuiet(for: 0.2, "policy hidden ignores focus")
    }

    func testDestroyingTheWindowIsReportedOnceAndEndsTheMonitor() throws {
        let display = try requireDisplay()
        let window = try TestWindow.open(display: display, test: self)
        let log = ChangeLog()
        let monitor = try BackgroundMonitor(display: display, window: window.id, policy: .hidden)
        monitor.start(onChange: log.append)
        defer { monitor.stop() }
        log.expectQuiet(for: 0.2, "visible")

        let began = ContinuousClock.now
        window.kill()
        log.expectEventually(.windowDestroyed, within: reportDeadline, since: began, "window destroyed")
        log.expectQuiet(for: 0.3, "nothing after windowDestroyed")
        XCTAssertEqual(log.changes.filter { $0 == .windowDestroyed }.count, 1)
    }

    func testStopIsPromptIdempotentAndWorksWithoutStart() throws {
        let display = try requireDisplay()
        let unstarted = try BackgroundMonitor(display: display, window: nil, policy: .hidden)
        unstarted.stop()
        unstarted.stop()

        let monitor = try BackgroundMonitor(display: display, window: nil, policy: .hidden, pollIntervalMs: 60_000)
        monitor.start(onChange: { _ in })
        monitor.start(onChange: { _ in XCTFail("a second start does nothing") })
        Thread.sleep(forTimeInterval: 0.05)
        let began = ContinuousClock.now
        monitor.stop()
        XCTAssertLessThan(began.duration(to: .now), .seconds(20), "stop does not wait out a 60 s poll interval")
        monitor.stop()
    }

    // MARK: Helpers

    /// `$DISPLAY`, with its screen saver off (Xvfb's own 600 s timeout turns it on in a display
    /// that has been idle that long, and the saver is a reason to pause).
    private func requireDisplay() throws -> String {
        guard let display = ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty else {
            throw XCTSkip("DISPLAY is unset: run under the test rig (scripts/rig.sh start) or any X server with an EWMH window manager")
        }
        try X.run(display, "xset", "s", "reset")
        return display
    }
}

/// Every change a monitor reported, with its arrival time, and waits over them.
private final class ChangeLog: Sendable {
    private struct Entry: Sendable {
        let change: BackgroundChange
        let time: ContinuousClock.Instant
    }

    private let entries = Mutex<[Entry]>([])
    private let consumed = Mutex<Int>(0)

    /// The `onChange` callback.
    @Sendable func append(_ change: BackgroundChange) {
        entries.withLock { $0.append(Entry(change: change, time: .now)) }
    }

    var changes: [BackgroundChange] { entries.withLock { $0.map(\.change) } }

    /// Asserts that the next unread change is `expected` and arrives within `seconds` after
    /// `began` (taken just before the action); prints the latency.
    func expectNext(_ expected: BackgroundChange, within seconds: Double, since began: ContinuousClock.Instant,
                    _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let index = consumed.withLock { $0 }
        guard let entry = waitForEntry(at: index, until: began + .seconds(seconds)) else {
            XCTFail("\(what): no change within \(seconds) s (expected \(expected); so far \(changes))", file: file, line: line)
            return
        }
        consumed.withLock { $0 = index + 1 }
        XCTAssertEqual(entry.change, expected, "\(what) (all so far: \(changes))", file: file, line: line)
        report(what, entry, began)
    }

    /// Asserts that the next unread change matches `matches`, or is `passing` once and the one
    /// after it matches, within `seconds` after `began`.
    func expectNext(within seconds: Double, since began: ContinuousClock.Instant, _ what: String,
                    passing: BackgroundChange, file: StaticString = #filePath, line: UInt = #line,
                    _ matches: (BackgroundChange) -> Bool) {
        var index = consumed.withLock { $0 }
        for attempt in 0..<2 {
            guard let entry = waitForEntry(at: index, until: began + .seconds(seconds)) else { break }
            index += 1
            consumed.withLock { $0 = index }
            if matches(entry.change) {
                report(what, entry, began)
                return
            }
            guard attempt == 0, entry.change == passing else {
                return XCTFail("\(what): unexpected \(entry.change) (all so far: \(changes))", file: file, line: line)
            }
            report(what + " (passing)", entry, began)
        }
        XCTFail("\(what): no matching change within \(seconds) s (all so far: \(changes))", file: file, line: line)
    }

    /// Asserts that `expected` arrives within `seconds` after `began`, whatever comes before it.
    func expectEventually(_ expected: BackgroundChange, within seconds: Double, since began: ContinuousClock.Instant,
                          _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        expectEventually(within: seconds, since: began, what, file: file, line: line) { $0 == expected }
    }

    /// Asserts that a change matching `matches` arrives within `seconds` after `began`, whatever
    /// comes before it.
    func expectEventually(within seconds: Double, since began: ContinuousClock.Instant, _ what: String,
                          file: StaticString = #filePath, line: UInt = #line,
                          _ matches: (BackgroundChange) -> Bool) {
        var index = consumed.withLock { $0 }
        while let entry = waitForEntry(at: index, until: began + .seconds(seconds)) {
            index += 1
            if matches(entry.change) {
                consumed.withLock { $0 = index }
                report(what, entry, began)
                return
            }
        }
        XCTFail("\(what): no matching change within \(seconds) s (got \(changes))", file: file, line: line)
    }

    /// Asserts that no change arrives for `seconds`.
    func expectQuiet(for seconds: Double, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let index = consumed.withLock { $0 }
        if let entry = waitForEntry(at: index, until: .now + .seconds(seconds)) {
            XCTFail("\(what): unexpected \(entry.change) (all so far: \(changes))", file: file, line: line)
            consumed.withLock { $0 = index + 1 }
        }
    }

    private func waitForEntry(at index: Int, until deadline: ContinuousClock.Instant) -> Entry? {
        while true {
            if let entry = entries.withLock({ $0.count > index ? $0[index] : nil }) { return entry }
            if ContinuousClock.now >= deadline { return nil }
            usleep(2_000)
        }
    }

    private func report(_ what: String, _ entry: Entry, _ began: ContinuousClock.Instant) {
        let elapsed = began.duration(to: entry.time).components
        let ms = Double(elapsed.seconds) * 1_000 + Double(elapsed.attoseconds) / 1e15
        print("BackgroundMonitorTests: \(what): \(entry.change) \(String(format: "%.1f", ms)) ms after the action began")
    }
}

/// A real top-level X window in its own process: `rk-testwindow` when built, else `ffplay`.
private final class TestWindow: @unchecked Sendable {
    let id: UInt
    private let process: Process

    var hex: String { "0x" + String(id, radix: 16) }

    private init(id: UInt, process: Process) {
        self.id = id
        self.process = process
    }

    /// Opens a window, waits until the window manager manages it (WM_STATE Normal, active), and
    /// makes the test kill it at teardown.
    static func open(display: String, test: XCTestCase, color: String = "d02020") throws -> TestWindow {
        let name = "rk-bg-\(UUID().uuidString.prefix(8))"
        let window = try launchTestWindowBinary(display: display, name: name, color: color)
            ?? launchFFplay(display: display, name: name, color: color)
        test.addTeardownBlock { window.kill() }
        try X.waitUntil("\(name) managed by the window manager") {
            try X.output(display, "xprop", "-id", window.hex, "WM_STATE").contains("Normal")
        }
        try X.activate(display, window)
        return window
    }

    /// Kills the window's process (SIGKILL: the X server destroys its windows) and reaps it.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `rk-testwindow --name … --color … --size …`, which prints `0x…`: `$RK_TESTWINDOW` if set,
    /// else `<package>/.build/debug/rk-testwindow`; nil when it is not built or does not print
    /// an id within 3 s.
    private static func launchTestWindowBinary(display: String, name: String, color: String) throws -> TestWindow? {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let binary = ProcessInfo.processInfo.environment["RK_TESTWINDOW"].map { URL(fileURLWithPath: $0) }
            ?? package.appendingPathComponent(".build/debug/rk-testwindow")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { return nil }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--name", name, "--color", color, "--size", "320x240"]
        process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let text = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline {
            let first = text.withLock { $0 }.split(separator: "\n").first.map(String.init)
            if let first, first.hasPrefix("0x"), let id = UInt(first.dropFirst(2).trimmingCharacters(in: .whitespaces), radix: 16) {
                output.fileHandleForReading.readabilityHandler = nil
                return TestWindow(id: id, process: process)
            }
            if !process.isRunning, text.withLock({ $0.contains("\n") || $0.isEmpty }) { break }
            usleep(10_000)
        }
        output.fileHandleForReading.readabilityHandler = nil
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return nil
    }

    /// `ffplay` showing a solid colour, found by its title with `xdotool search`.
    private static func launchFFplay(display: String, name: String, color: String) throws -> TestWindow {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffplay", "-loglevel", "error", "-an", "-f", "lavfi",
                             "-i", "color=c=0x\(color):size=320x240:rate=5", "-window_title", name]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["DISPLAY": display, "SDL_VIDEODRIVER": "x11", "SDL_AUDIODRIVER": "dummy"]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var found: UInt?
        do {
            try X.waitUntil("ffplay window \(name)") {
                let ids = try X.output(display, "xdotool", "search", "--name", "^\(name)$")
                found = ids.split(separator: "\n").first.flatMap { UInt($0) }
                return found != nil
            }
        } catch {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
        return TestWindow(id: found ?? 0, process: process)
    }
}

/// X command-line tools, each run with a time limit.
private enum X {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `tool arguments…` on `display`; throws if it fails or takes more than `timeout` s.
    static func run(_ display: String, _ tool: String, _ arguments: String..., timeout: Double = 5) throws {
        _ = try output(display, tool, arguments, timeout: timeout)
    }

    /// Runs `tool arguments…` like `run`; returns the instant just before it started, from which
    /// the test measures how long the monitor took to report the change it causes.
    static func act(_ display: String, _ tool: String, _ arguments: String...) throws -> ContinuousClock.Instant {
        let began = ContinuousClock.now
        _ = try output(display, tool, arguments, timeout: 5)
        return began
    }

    /// Runs a tool and returns its standard output.
    static func output(_ display: String, _ tool: String, _ arguments: String..., timeout: Double = 5) throws -> String {
        try output(display, tool, arguments, timeout: timeout)
    }

    static func output(_ display: String, _ tool: String, _ arguments: [String], timeout: Double) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(timeout)
        while process.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) took more than \(timeout) s")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Polls `condition` every 20 ms for up to `timeout` s; a throwing check counts as false.
    static func waitUntil(_ what: String, timeout: Double = 5, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if (try? condition()) == true { return }
            usleep(20_000)
        }
        throw Failure(description: "timed out after \(timeout) s waiting for \(what)")
    }

    /// Activates `window` and waits until `_NET_ACTIVE_WINDOW` names it.
    static func activate(_ display: String, _ window: TestWindow) throws {
        try run(display, "xdotool", "windowactivate", window.hex)
        try waitUntil("\(window.hex) active") {
            let line = try output(display, "xprop", "-root", "_NET_ACTIVE_WINDOW")
            let token = line.split(whereSeparator: { $0 == " " || $0 == "\n" }).last
            return token.flatMap { UInt($0.dropFirst(2), radix: 16) } == window.id
        }
    }

    /// The child of the root holding `window` (its window-manager frame), from `xwininfo -children`.
    static func topLevel(_ display: String, of window: UInt) throws -> UInt {
        var current = window
        for _ in 0..<16 {
            let text = try output(display, "xwininfo", "-children", "-id", "0x" + String(current, radix: 16))
            func id(after label: String) -> UInt? {
                guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }),
                      let token = line.split(separator: " ").first(where: { $0.hasPrefix("0x") }) else { return nil }
                return UInt(token.dropFirst(2), radix: 16)
            }
            guard let root = id(after: "Root window id:"), let parent = id(after: "Parent window id:") else {
                throw Failure(description: "cannot read the parent of 0x\(String(current, radix: 16))")
            }
            if parent == root { return current }
            current = parent
        }
        throw Failure(description: "window tree too deep")
    }
}
