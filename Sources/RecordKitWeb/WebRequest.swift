/// A request as a route sees it: head and body complete, already past the Host, Origin and
/// size checks. Values, so it can be handed to any task.
package struct WebRequest: Sendable {
    /// The method, upper case as sent (`GET`, `POST`, …).
    package let method: String
    /// The path without the query, percent-decoding left to the route (`/movie`).
    package let path: String
    /// The query items, decoded (`+` is a space); the last of a repeated name wins.
    package let query: [String: String]
    /// The header fields in their order, names as sent.
    package let headers: [(name: String, value: String)]
    /// The body (at most ``WebLimits/maxBodyBytes``).
    package let body: [UInt8]

    /// Makes a request from its parts; `target` is the request target (`/path?query`).
    package init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8] = []) {
        self.method = method
        self.headers = headers
        self.body = body
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = parts.first.map(String.init) ?? "/"
        query = parts.count > 1 ? Self.parseQuery(parts[1]) : [:]
    }

    /// The first value of header `name` (case-insensitive), or nil.
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The value of cookie `name` from the `Cookie` headers, or nil.
    package func cookie(_ name: String) -> String? {
        let lower = "cookie"
        for field in headers where field.name.lowercased() == lower {
            for part in field.value.split(separator: ";") {
                let pair = part.drop { $0 == " " || $0 == "\t" }.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == name { return String(pair[1]) }
            }
        }
        return nil
    }

    private static func parseQuery(_ text: Substring) -> [String: String] {
        var items: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]) else { continue }
            items[name] = parts.count > 1 ? percentDecoded(parts[1]) ?? "" : ""
        }
        return items
    }

    /// Decodes `%XX` and `+`; nil when an escape is malformed or the result is not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
