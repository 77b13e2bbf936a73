/// A JSON text that does not parse: what is wrong and where (1-based line and column).
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    package var message: String
    /// Line of the offending character.
    package var line: Int
    /// Column of the offending character.
    package var column: Int

    package var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict RFC 8259 parser for small documents (manifests, protocol messages).
///
/// Strict on purpose: a protocol peer that writes anything else is broken, and a manifest with
/// a trailing comma should be fixed, not guessed at. Nesting deeper than 64 levels is refused.
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Parses `text` as one JSON value (surrounding white space allowed).
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses UTF-8 `bytes` as one JSON value (surrounding white space allowed).
    package static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes))
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if peek(UInt8(ascii: "}")) { index += 1; depth -= 1; return .object(members) }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a member name in double quotes") }
            let keyStart = index
            let key = try string()
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after member name \"\(key)\"") }
            index += 1
            skipSpace()
            let v = try value()
            if members.updateValue(v, forKey: key) != nil {
                index = keyStart
                throw error("duplicate member \"\(key)\"")
            }
            skipSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; depth -= 1; return .object(members) }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if peek(UInt8(ascii: "]")) { index += 1; depth -= 1; return .array(elements) }
        while true {
            skipSpace()
            elements.append(try value())
            skipSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; depth -= 1; return .array(elements) }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func string() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, _ upTo: Int, into scalars: inout String.UnicodeScalarView) {
            if upTo > runStart { scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<upTo], as: UTF8.self).unicodeScalars) }
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                flush(self, index, into: &scalars)
                index += 1
                return String(scalars)
            }
            if c < 0x20 { throw error("control character in a string (escape it)") }
            if c != UInt8(ascii: "\\") { index += 1; continue }
            flush(self, index, into: &scalars)
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(scalar)
            default:
                index -= 1
                throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
            }
            runStart = index
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        var integral = true
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero in a number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            integral = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let i = Int64(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else {
            index = start
            throw error("number out of range")
        }
        return .double(d)
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count && word.withUTF8Buffer { w in
            (0..<count).allSatisfy { bytes[index + $0] == w[$0] }
        }
        guard matches else { throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'") }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > 64 { throw error("nested deeper than 64 levels") }
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func peek(_ c: UInt8) -> Bool { index < bytes.count && bytes[index] == c }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private func error(_ message: String) -> JSONParseError {
        var line = 1, column = 1
        for c in bytes[..<min(index, bytes.count)] {
            if c == 0x0A { line += 1; column = 1 } else if c & 0xC0 != 0x80 { column += 1 }
        }
        return JSONParseError(message: message, line: line, column: column)
    }
}
