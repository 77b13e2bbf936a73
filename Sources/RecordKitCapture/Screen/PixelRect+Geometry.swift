import RecordKit

/// A capture rectangle is the SDK's ``PixelRect`` (one type for a rectangle of pixels); on the
/// screen its origin is the root window's top-left corner. Its text form is X11 geometry.
extension PixelRect {
    /// Parses X11 geometry `WIDTHxHEIGHT+X+Y`, e.g. `640x480+100+50`.
    ///
    /// Width and height must be positive; offsets are non-negative and measured from the
    /// top-left corner (the `-X` "from the right" form of X11 geometry is not accepted).
    /// - Throws: ``CaptureError`` of kind `.badRegion` quoting the input and the expected form.
    package static func parse(_ text: String) throws(CaptureError) -> PixelRect {
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
        return PixelRect(x: x, y: y, width: width, height: height)
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
