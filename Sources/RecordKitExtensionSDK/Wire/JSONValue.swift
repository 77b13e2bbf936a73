/// A JSON value, as the extension protocol and extension manifests use it.
///
/// Integers and other numbers are kept apart (`5` is ``int(_:)``, `5.0` and `5e0` are
/// ``double(_:)``), so a manifest can insist on an integer. Objects are unordered; the parser
/// rejects duplicate keys.
package enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// The member `key` of an object (nil for a missing key or a non-object).
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if this is one.
    package var string: String? { if case .string(let s) = self { return s }; return nil }
    /// The boolean, if this is one.
    package var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The integer, if this is one (a double with an integral value counts too).
    package var int: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }
    /// The number as a double, if this is a number.
    package var double: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    /// The elements, if this is an array.
    package var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members, if this is an object.
    package var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }

    /// What kind of value this is, for error messages ("a string", "an object").
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
