/// Standard base64 (RFC 4648, with padding), for the few binary fields of protocol messages.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` as base64 text.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base64 `text`, or nil when it is not valid base64.
    package static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            var quad: [UInt8] = [0, 0, 0, 0]
            var padding = 0
            for j in 0..<4 {
                let c = chars[i + j]
                if c == UInt8(ascii: "=") {
                    guard i + 4 == chars.count, j >= 2 else { return nil }
                    padding += 1
                    continue
                }
                guard padding == 0, let v = value(of: c) else { return nil }
                quad[j] = v
            }
            out.append(quad[0] << 2 | quad[1] >> 4)
            if padding < 2 { out.append(quad[1] << 4 | quad[2] >> 2) }
            if padding < 1 { out.append(quad[2] << 6 | quad[3]) }
            i += 4
        }
        return out
    }

    private static func value(of c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
