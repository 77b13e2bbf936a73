/// A rectangle of pixels in a frame (or, for capture, on the screen), origin at the top-left corner.
public struct PixelRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Left edge, in pixels.
    public var x: Int
    /// Top edge, in pixels.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle in X11 geometry form, `WIDTHxHEIGHT+X+Y` (as `640x480+100+50`).
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
