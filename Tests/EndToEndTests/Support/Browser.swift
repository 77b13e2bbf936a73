import Foundation
import XCTest

/// Headless Chromium (Debian's `chromium` + `chromium-driver`), driven by Selenium through
/// Tests/Fixtures/browser/browser_driver.py: the test writes one JSON command per line into a
/// FIFO and reads the answer line the driver prints. Every command is bounded in time; the
/// browser is closed at ``close()`` (and killed if it does not go).
final class Browser: @unchecked Sendable {
    private let process: RunningProcess
    private let commands: FileHandle
    private var nextID = 0

    /// The driver script.
    static var driverPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/browser/browser_driver.py").path
    }

    /// Starts a browser whose window is `size` pixels; fails when Chromium, its driver or
    /// Selenium is missing (scripts/install-deps.sh installs them).
    init(rig: Rig, workDir: String, size: (Int, Int) = (1280, 900)) throws {
        let fifo = workDir + "/browser-\(UUID().uuidString.prefix(6)).fifo"
        guard mkfifo(fifo, 0o600) == 0 else { throw ProcessRunnerError(description: "mkfifo \(fifo) failed") }
        var environment = rig.environment
        environment.removeValue(forKey: "DISPLAY")  // headless: never draw on the recorded display
        process = try RunningProcess("python3", [Browser.driverPath, fifo, "--size", "\(size.0),\(size.1)"], environment: environment)
        guard process.waitForLine(timeout: 60, where: { $0 == "ready" }) != nil else {
            let result = process.wait(timeout: 1, grace: 1)
            throw ProcessRunnerError(description: "the browser driver did not start (is chromium, chromium-driver and selenium installed?): \(result)")
        }
        guard let handle = FileHandle(forWritingAtPath: fifo) else {
            process.terminate()
            throw ProcessRunnerError(description: "opening \(fifo) failed")
        }
        commands = handle
    }

    /// Sends `command` (without its id) and returns the answer's value; throws the driver's error.
    @discardableResult
    func send(_ command: [String: Any], timeout: TimeInterval = 60) throws -> Any? {
        nextID += 1
        var full = command
        full["id"] = nextID
        var line = try JSONSerialization.data(withJSONObject: full)
        line.append(0x0A)
        try commands.write(contentsOf: line)
        let prefix = "R\(nextID) "
        guard let answer = process.waitForLine(timeout: timeout, where: { $0.hasPrefix(prefix) }) else {
            throw ProcessRunnerError(description: "the browser did not answer \(command["op"] ?? "?") within \(timeout) s")
        }
        let object = try JSONSerialization.jsonObject(with: Data(answer.dropFirst(prefix.count).utf8)) as? [String: Any] ?? [:]
        guard object["ok"] as? Bool == true else {
            throw ProcessRunnerError(description: "browser \(command["op"] ?? "?") failed: \(object["error"] ?? "?")")
        }
        return object["value"] is NSNull ? nil : object["value"]
    }

    /// Loads `url`.
    func open(_ url: String) throws { try send(["op": "open", "url": url]) }

    /// Runs `js` (a function body: `return …`) in the page.
    func eval(_ js: String) throws -> Any? { try send(["op": "eval", "js": js]) }

    /// Waits until `js` is truthy; the seconds it took, or nil after `timeout`.
    func wait(_ js: String, timeout: Double) throws -> Double? {
        try send(["op": "wait", "js": js, "timeout": timeout], timeout: timeout + 30) as? Double
    }

    /// Saves a PNG of the window.
    func screenshot(_ path: String) throws { try send(["op": "screenshot", "path": path]) }

    /// Clicks the element with id `element`, accepting a confirmation dialog when `accept`.
    func click(_ element: String, accept: Bool = false) throws { try send(["op": "click", "element": element, "accept": accept]) }

    /// CLOCK_MONOTONIC seconds minus the page's `Date.now()` seconds.
    func clockOffset() throws -> Double { try send(["op": "clock"]) as? Double ?? 0 }

    /// Opens a blank tab in front: the page's tab goes to the background (`document.hidden`).
    func hidePage() throws { try send(["op": "tab", "to": "new"]) }

    /// Closes the other tabs: the page's tab is in front again.
    func showPage() throws { try send(["op": "tab", "to": "first"]) }

    /// Quits the browser.
    func close() {
        _ = try? send(["op": "quit"], timeout: 20)
        try? commands.close()
        process.wait(timeout: 20, grace: 3)
    }
}
