import RecordKit

/// One RandR monitor: a named rectangle of the X screen (a physical output, or a virtual
/// monitor made with `xrandr --setmonitor`).
package struct MonitorInfo: Sendable, Equatable, Codable {
    /// Position in the server's monitor list, from 0 (what `--monitor INDEX` selects).
    package var index: Int
    /// RandR name (what `--monitor NAME` selects).
    package var name: String
    /// Whether it is the primary monitor.
    package var isPrimary: Bool
    /// Left edge on the screen, in pixels.
    package var x: Int
    /// Top edge on the screen, in pixels.
    package var y: Int
    /// Width in pixels.
    package var width: Int
    /// Height in pixels.
    package var height: Int

    /// Creates a description.
    package init(index: Int, name: String, isPrimary: Bool, x: Int, y: Int, width: Int, height: Int) {
        self.index = index
        self.name = name
        self.isPrimary = isPrimary
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Its rectangle on the screen.
    package var rect: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }

    /// Whether `selector` names this monitor.
    func matches(_ selector: MonitorSelector) -> Bool {
        switch selector {
        case .index(let i): i == index
        case .name(let n): n == name
        }
    }
}
