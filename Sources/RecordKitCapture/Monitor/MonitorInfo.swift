/// One RandR monitor: a named rectangle of the X screen (a physical output, or a virtual
/// monitor made with `xrandr --setmonitor`).
public struct MonitorInfo: Sendable, Equatable, Codable {
    /// Position in the server's monitor list, from 0 (what `--monitor INDEX` selects).
    public var index: Int
    /// RandR name (what `--monitor NAME` selects).
    public var name: String
    /// Whether it is the primary monitor.
    public var isPrimary: Bool
    /// Left edge on the screen, in pixels.
    public var x: Int
    /// Top edge on the screen, in pixels.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a description.
    public init(index: Int, name: String, isPrimary: Bool, x: Int, y: Int, width: Int, height: Int) {
        self.index = index
        self.name = name
        self.isPrimary = isPrimary
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Its rectangle on the screen.
    public var rect: CaptureRect { CaptureRect(x: x, y: y, width: width, height: height) }

    /// Whether `selector` names this monitor.
    func matches(_ selector: MonitorSelector) -> Bool {
        switch selector {
        case .index(let i): i == index
        case .name(let n): n == name
        }
    }
}
