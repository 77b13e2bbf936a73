/// A rectangle in root-window (screen) pixel coordinates, origin at the top-left corner.
package struct CaptureRect: Sendable, Equatable, CustomStringConvertible {
    /// Left edge, in pixels from the left of the screen.
    package var x: Int
    /// Top edge, in pixels from the top of the screen.
    package var y: Int
    /// Width in pixels.
    package var width: Int
    /// Height in pixels.
    package var height: Int

    /// Creates a rectangle. No validation happens here; ``ScreenCapture`` checks that a region
    /// lies inside the screen when it opens the display.
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle in X11 geometry form, `WIDTHxHEIGHT+X+Y` (what ``parse(_:)`` reads).
    package var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// Parses X11 geometry `WIDTHxHEIGHT+X+Y`, e.g. `640x480+100+50`.
    ///
    /// Width and height must be positive; offsets are non-negative and measured from the
    /// top-left corner (the `-X` "from the right" form of X11 geometry is not accepted).
    /// - Throws: ``CaptureError`` of kind `.badRegion` quoting the input and the expected form.
    package static func parse(_ text: String) throws(CaptureError) -> CaptureRect {
        let bad = CaptureError(.badRegion,
            "invalid region \"\(text)\": expected WIDTHxHEIGHT+X+Y in pixels, e.g. 640x480+100+50")
        let trimmed = text.trimmingASCIIWhitespace()
        guard let times = trimmed.firstIndex(where: { $0 == "x" || $0 == "X" }) else { throw bad }
        let afterSize = trimmed[trimmed.index(after: times)...]
        guard let plus1 = afterSize.firstIndex(of: "+") else { throw bad }
        let afterX = afterSize[afterSize.index(after: plus1)...]
        guard let plus2 = afterX.firstIndex(of: "+") else { throw bad }
        guard let width = Self.number(trimmed[..<times]),
              let height = Self.number(afterSize[..<plus1]),
              let x = Self.number(afterX[..<plus2]),
              let y = Self.number(afterX[afterX.index(after: plus2)...]) else { throw bad }
        guard width > 0, height > 0 else {
            throw CaptureError(.badRegion,
                "invalid region \"\(text)\": width and height must be positive (WIDTHxHEIGHT+X+Y, e.g. 640x480+100+50)")
        }
        return CaptureRect(x: x, y: y, width: width, height: height)
    }

    /// A non-negative decimal made of ASCII digits only (no sign, no spaces), or nil.
    private static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.count <= 9,
              digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces, tabs and newlines.
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return Substring() }
        return self[first...last]
    }
}
