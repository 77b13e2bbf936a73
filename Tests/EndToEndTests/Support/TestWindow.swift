import Foundation

/// A running `rk-testwindow`: a top-level window of one colour at a known place on the rig's display.
final class TestWindow: @unchecked Sendable {
    /// The window id as rk-testwindow printed it ("0x...").
    let id: String
    let rect: PixelRect
    let color: UInt32
    let name: String
    let process: RunningProcess

    private init(id: String, rect: PixelRect, color: UInt32, name: String, process: RunningProcess) {
        (self.id, self.rect, self.color, self.name, self.process) = (id, rect, color, name, process)
    }

    var rgb: RGB { RGB(hex: color) }

    /// Starts a window and waits (bounded) until it is mapped and painted.
    /// Close it with `close()` (tests register that as a teardown block).
    static func launch(_ rig: Rig, size: (Int, Int) = (640, 480), position: (Int, Int) = (100, 100),
                       color: UInt32, name: String, extraArguments: [String] = [],
                       timeout: TimeInterval = 15) throws -> TestWindow {
        let args = ["--size", "\(size.0)x\(size.1)", "--position", "\(position.0),\(position.1)",
                    "--color", String(format: "%06X", color), "--name", name] + extraArguments
        let p = try RunningProcess(try rig.testWindowPath(), args, environment: rig.environment)
        guard let line = p.waitForLine(timeout: timeout, where: { $0.hasPrefix("0x") }) else {
            let r = p.wait(timeout: 1, grace: 1)
            throw RigError(description: "rk-testwindow did not report a window id within \(timeout) s: \(r)")
        }
        let w = TestWindow(id: line, rect: PixelRect(x: position.0, y: position.1, width: size.0, height: size.1),
                           color: color, name: name, process: p)
        // The window manager may still be settling (reparenting, stacking): wait until the
        // window really is where it was asked to be and shows its colour.
        let deadline = Date().addingTimeInterval(timeout)
        // Its colour changes (flashes, or the counter's top half): check geometry only.
        let flashes = extraArguments.contains("--flash-every") || extraArguments.contains("--counter")
        var lastError = ""
        while Date() < deadline {
            do {
                let g = try w.geometry()
                let shot = try FrameSampler.grabScreen(display: rig.display, w.rect.inset(0.25))
                let mean = shot.mean(shot.fullRect)
                if g.x == w.rect.x && g.y == w.rect.y && g.width == w.rect.width && g.height == w.rect.height
                    && (flashes || mean.distance(to: w.rgb) <= 2) {
                    return w
                }
                lastError = "geometry \(g), screen shows \(mean) where \(w.rgb) was expected"
            } catch {
                lastError = "\(error)"
            }
            usleep(100_000)
        }
        w.close()
        throw RigError(description: "window \(name) \(line) did not settle at \(w.rect): \(lastError)")
    }

    /// The window's absolute geometry, from `xwininfo`.
    func geometry() throws -> PixelRect {
        let r = try ProcessRunner.run("xwininfo", ["-id", id], timeout: 10)
        guard r.exitCode == 0 else { throw RigError(description: "xwininfo -id \(id): \(r)") }
        func field(_ label: String) -> Int? {
            for line in r.stdout.split(separator: "\n") {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.hasPrefix(label + ":") { return Int(t.dropFirst(label.count + 1).trimmingCharacters(in: .whitespaces)) }
            }
            return nil
        }
        guard let x = field("Absolute upper-left X"), let y = field("Absolute upper-left Y"),
              let w = field("Width"), let h = field("Height") else {
            throw RigError(description: "cannot parse xwininfo output: \(r.stdout)")
        }
        return PixelRect(x: x, y: y, width: w, height: h)
    }

    /// Ends the window process (SIGTERM, then SIGKILL); idempotent.
    func close() {
        process.terminate(grace: 3)
        _ = process.wait(timeout: 5, grace: 1)
    }
}
