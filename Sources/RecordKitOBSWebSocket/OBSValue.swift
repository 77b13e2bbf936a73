/// One value of an obs-websocket message, whichever encoding carried it (JSON text or
/// MessagePack binary): the JSON data model, with integers kept apart from floating point so
/// op codes, status codes and bitmasks stay exact.
package enum OBSValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([OBSValue])
    case object([String: OBSValue])

    /// The member `key` of an object, or nil.
    package subscript(key: String) -> OBSValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The integer, also from a double with no fraction (JSON clients may send `1.0`).
    package var int: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }
    /// The number as a double.
    package var double: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    /// The string, or nil.
    package var string: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The boolean, or nil.
    package var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    /// The object's members, or nil.
    package var object: [String: OBSValue]? { if case .object(let o) = self { return o } else { return nil } }
    /// The array's items, or nil.
    package var array: [OBSValue]? { if case .array(let a) = self { return a } else { return nil } }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([OBSValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: OBSValue].self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d.isFinite ? d : 0)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension OBSValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
                    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByFloatLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(dictionaryLiteral elements: (String, OBSValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    package init(arrayLiteral elements: OBSValue...) { self = .array(elements) }
}
