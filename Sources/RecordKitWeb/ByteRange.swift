/// HTTP `Range` (RFC 9110, 14.1.2) against a file of known size, with no arithmetic that can
/// trap: numbers are parsed with overflow checks and saturate, and every comparison is made
/// before any subtraction.
///
/// The promise: one satisfiable `bytes=` range gives ``partial(first:last:)`` (inclusive, within
/// the file); any `bytes=` value that is malformed or cannot be satisfied (`bytes=<size>-`,
/// `bytes=9223372036854775800-`, `bytes=-0`, `bytes=-5-10`, `bytes=5-1`, anything on an empty
/// file) gives ``unsatisfiable`` (416); no header, another unit, or several ranges give
/// ``whole`` (200, which RFC 9110 allows a server to choose).
package enum ByteRange: Equatable, Sendable {
    /// Send the whole file (200).
    case whole
    /// Send bytes `first...last` (206).
    case partial(first: Int64, last: Int64)
    /// Answer 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// What to send for the `Range` header `header` (nil: none) of a file of `size` bytes.
    package static func resolve(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.drop { $0 == " " || $0 == "\t" }
        guard trimmed.count >= 6, trimmed.prefix(6).lowercased() == "bytes=" else { return .whole }
        let spec = trimmed.dropFirst(6)
        if spec.contains(",") { return .whole }
        let text = spec.filter { $0 != " " && $0 != "\t" }
        guard let dash = text.firstIndex(of: "-") else { return .unsatisfiable }
        let firstText = text[..<dash], lastText = text[text.index(after: dash)...]
        guard size > 0 else { return .unsatisfiable }
        if firstText.isEmpty {
            // Suffix: the last N bytes.
            guard let count = number(lastText), count > 0 else { return .unsatisfiable }
            return .partial(first: count >= size ? 0 : size - count, last: size - 1)
        }
        guard let first = number(firstText), first < size else { return .unsatisfiable }
        if lastText.isEmpty { return .partial(first: first, last: size - 1) }
        guard let last = number(lastText), last >= first else { return .unsatisfiable }
        return .partial(first: first, last: min(last, size - 1))
    }

    /// A run of ASCII digits as a non-negative number, `Int64.max` when it is larger; nil when
    /// empty or anything but digits.
    static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = (o1 || o2) ? Int64.max : sum
        }
        return value
    }
}
