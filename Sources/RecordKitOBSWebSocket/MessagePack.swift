/// MessagePack (msgpack.org spec) for ``OBSValue``: what the `obswebsocket.msgpack` subprotocol
/// carries in binary frames.
///
/// Written here because no MessagePack package is on this project's machines (the package list
/// in the environment notes has none); the subset is what obs-websocket uses: nil, booleans,
/// integers, floats, strings, binary (read as an array of byte values, never produced), arrays and
/// maps with string keys. Decoding is total and bounded: any bytes give a value or an error,
/// never a trap; nesting is limited to ``maxDepth`` and every length is checked against the bytes
/// left before anything is allocated.
package enum MessagePack {
    /// What a frame that is not a message is.
    package struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    /// The deepest nesting accepted.
    package static let maxDepth = 64

    /// Encodes `value`.
    package static func encode(_ value: OBSValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// Decodes exactly one value filling all of `bytes`.
    package static func decode(_ bytes: [UInt8]) throws(DecodeError) -> OBSValue {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        guard reader.offset == bytes.count else { throw DecodeError("\(bytes.count - reader.offset) bytes after the message") }
        return value
    }

    // MARK: Encoding

    private static func write(_ value: OBSValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(0xC0)
        case .bool(let b): out.append(b ? 0xC3 : 0xC2)
        case .int(let i): writeInt(i, into: &out)
        case .double(let d):
            out.append(0xCB)
            appendBigEndian(d.bitPattern, into: &out)
        case .string(let s):
            let utf8 = Array(s.utf8)
            let n = utf8.count
            if n < 32 { out.append(0xA0 | UInt8(n)) }
            else if n <= 0xFF { out.append(0xD9); out.append(UInt8(n)) }
            else if n <= 0xFFFF { out.append(0xDA); appendBigEndian(UInt16(n), into: &out) }
            else { out.append(0xDB); appendBigEndian(UInt32(n), into: &out) }
            out.append(contentsOf: utf8)
        case .array(let a):
            let n = a.count
            if n < 16 { out.append(0x90 | UInt8(n)) }
            else if n <= 0xFFFF { out.append(0xDC); appendBigEndian(UInt16(n), into: &out) }
            else { out.append(0xDD); appendBigEndian(UInt32(n), into: &out) }
            for item in a { write(item, into: &out) }
        case .object(let o):
            let n = o.count
            if n < 16 { out.append(0x80 | UInt8(n)) }
            else if n <= 0xFFFF { out.append(0xDE); appendBigEndian(UInt16(n), into: &out) }
            else { out.append(0xDF); appendBigEndian(UInt32(n), into: &out) }
            for key in o.keys.sorted() {
                write(.string(key), into: &out)
                write(o[key]!, into: &out)
            }
        }
    }

    private static func writeInt(_ i: Int64, into out: inout [UInt8]) {
        if i >= 0 {
            if i < 128 { out.append(UInt8(i)) }
            else if i <= 0xFF { out.append(0xCC); out.append(UInt8(i)) }
            else if i <= 0xFFFF { out.append(0xCD); appendBigEndian(UInt16(i), into: &out) }
            else if i <= 0xFFFF_FFFF { out.append(0xCE); appendBigEndian(UInt32(i), into: &out) }
            else { out.append(0xCF); appendBigEndian(UInt64(i), into: &out) }
        } else {
            if i >= -32 { out.append(UInt8(bitPattern: Int8(i))) }
            else if i >= -128 { out.append(0xD0); out.append(UInt8(bitPattern: Int8(i))) }
            else if i >= -32768 { out.append(0xD1); appendBigEndian(UInt16(bitPattern: Int16(i)), into: &out) }
            else if i >= -2_147_483_648 { out.append(0xD2); appendBigEndian(UInt32(bitPattern: Int32(i)), into: &out) }
            else { out.append(0xD3); appendBigEndian(UInt64(bitPattern: i), into: &out) }
        }
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ v: T, into out: inout [UInt8]) {
        var be = v.bigEndian
        withUnsafeBytes(of: &be) { out.append(contentsOf: $0) }
    }

    // MARK: Decoding

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws(DecodeError) -> UInt8 {
            guard offset < bytes.count else { throw DecodeError("truncated at byte \(offset)") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(DecodeError) -> T {
            let size = MemoryLayout<T>.size
            guard bytes.count - offset >= size else { throw DecodeError("truncated at byte \(offset)") }
            var v: T = 0
            for i in 0..<size { v = (v << 8) | T(bytes[offset + i]) }
            offset += size
            return v
        }

        mutating func take(_ n: Int) throws(DecodeError) -> ArraySlice<UInt8> {
            guard n >= 0, bytes.count - offset >= n else { throw DecodeError("a length of \(n) runs past the end at byte \(offset)") }
            defer { offset += n }
            return bytes[offset..<(offset + n)]
        }

        mutating func string(_ n: Int) throws(DecodeError) -> OBSValue {
            let raw = try take(n)
            guard let s = String(validating: raw, as: UTF8.self) else { throw DecodeError("a string that is not UTF-8 at byte \(offset - n)") }
            return .string(s)
        }

        mutating func array(_ n: Int, depth: Int) throws(DecodeError) -> OBSValue {
            // Every item takes at least one byte: a count larger than the bytes left is a lie.
            guard n <= bytes.count - offset else { throw DecodeError("an array of \(n) items runs past the end") }
            var items: [OBSValue] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try value(depth: depth + 1)) }
            return .array(items)
        }

        mutating func map(_ n: Int, depth: Int) throws(DecodeError) -> OBSValue {
            guard n <= (bytes.count - offset) / 2 else { throw DecodeError("a map of \(n) pairs runs past the end") }
            var members: [String: OBSValue] = [:]
            for _ in 0..<n {
                guard case .string(let key) = try value(depth: depth + 1) else { throw DecodeError("a map key that is not a string") }
                members[key] = try value(depth: depth + 1)
            }
            return .object(members)
        }

        mutating func value(depth: Int) throws(DecodeError) -> OBSValue {
            guard depth < MessagePack.maxDepth else { throw DecodeError("nested deeper than \(MessagePack.maxDepth)") }
            let b = try byte()
            switch b {
            case 0x00...0x7F: return .int(Int64(b))
            case 0x80...0x8F: return try map(Int(b & 0x0F), depth: depth)
            case 0x90...0x9F: return try array(Int(b & 0x0F), depth: depth)
            case 0xA0...0xBF: return try string(Int(b & 0x1F))
            case 0xC0: return .null
            case 0xC2: return .bool(false)
            case 0xC3: return .bool(true)
            case 0xC4: return .array(try take(Int(try integer(UInt8.self))).map { .int(Int64($0)) })
            case 0xC5: return .array(try take(Int(try integer(UInt16.self))).map { .int(Int64($0)) })
            case 0xC6: return .array(try take(Int(try integer(UInt32.self))).map { .int(Int64($0)) })
            case 0xCA: return .double(Double(Float(bitPattern: try integer(UInt32.self))))
            case 0xCB: return .double(Double(bitPattern: try integer(UInt64.self)))
            case 0xCC: return .int(Int64(try integer(UInt8.self)))
            case 0xCD: return .int(Int64(try integer(UInt16.self)))
            case 0xCE: return .int(Int64(try integer(UInt32.self)))
            case 0xCF:
                let v = try integer(UInt64.self)
                return v <= UInt64(Int64.max) ? .int(Int64(v)) : .double(Double(v))
            case 0xD0: return .int(Int64(Int8(bitPattern: try integer(UInt8.self))))
            case 0xD1: return .int(Int64(Int16(bitPattern: try integer(UInt16.self))))
            case 0xD2: return .int(Int64(Int32(bitPattern: try integer(UInt32.self))))
            case 0xD3: return .int(Int64(bitPattern: try integer(UInt64.self)))
            case 0xD9: return try string(Int(try integer(UInt8.self)))
            case 0xDA: return try string(Int(try integer(UInt16.self)))
            case 0xDB: return try string(Int(try integer(UInt32.self)))
            case 0xDC: return try array(Int(try integer(UInt16.self)), depth: depth)
            case 0xDD: return try array(Int(try integer(UInt32.self)), depth: depth)
            case 0xDE: return try map(Int(try integer(UInt16.self)), depth: depth)
            case 0xDF: return try map(Int(try integer(UInt32.self)), depth: depth)
            case 0xE0...0xFF: return .int(Int64(Int8(bitPattern: b)))
            default: throw DecodeError("type byte 0x\(String(b, radix: 16)) (extension types are not used by obs-websocket) at byte \(offset - 1)")
            }
        }
    }
}
