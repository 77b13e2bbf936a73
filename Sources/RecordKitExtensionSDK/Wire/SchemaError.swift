/// A JSON document that parses but does not have the expected shape: where (a path such as
/// `input.video.format`) and what is wrong.
package struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Dotted path of the offending member (`""` for the document itself).
    package var path: String
    /// What is wrong, and what was expected.
    package var message: String

    /// Creates an error at `path`.
    package init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    package var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Reads the members of one JSON object with typed accessors that fail with a ``SchemaError``
/// naming the member's path.
package struct ObjectReader {
    /// The members.
    package let members: [String: JSONValue]
    /// Path of the object itself.
    package let path: String

    /// Reads `value`, which must be an object.
    package init(_ value: JSONValue, path: String) throws(SchemaError) {
        guard case .object(let members) = value else {
            throw SchemaError(path, "expected an object, got \(value.kindDescription)")
        }
        self.members = members
        self.path = path
    }

    /// The path of member `key`.
    package func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Fails when a member other than `known` is present (or, with `custom`, an `x-…` one).
    package func allowOnly(_ known: Set<String>, custom: Bool = false) throws(SchemaError) {
        for key in members.keys.sorted() where !known.contains(key) && !(custom && key.hasPrefix("x-")) {
            throw SchemaError(path(of: key), "unknown member; expected one of \(known.sorted().joined(separator: ", "))")
        }
    }

    /// Member `key`, which must be present.
    package func required(_ key: String) throws(SchemaError) -> JSONValue {
        guard let v = members[key] else { throw SchemaError(path(of: key), "missing (required)") }
        return v
    }

    /// String member `key`, or nil when absent.
    package func string(_ key: String) throws(SchemaError) -> String? {
        guard let v = members[key] else { return nil }
        guard let s = v.string else { throw SchemaError(path(of: key), "expected a string, got \(v.kindDescription)") }
        return s
    }

    /// String member `key`, which must be present.
    package func requiredString(_ key: String) throws(SchemaError) -> String {
        guard let s = try string(key) else { throw SchemaError(path(of: key), "missing (required)") }
        return s
    }

    /// Integer member `key` within `range`, or nil when absent.
    package func int(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(SchemaError) -> Int64? {
        guard let v = members[key] else { return nil }
        guard case .int(let i) = v else { throw SchemaError(path(of: key), "expected an integer, got \(v.kindDescription)") }
        guard range.contains(i) else {
            throw SchemaError(path(of: key), "\(i) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return i
    }

    /// Number member `key` within `range`, or nil when absent.
    package func double(_ key: String, in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude) throws(SchemaError) -> Double? {
        guard let v = members[key] else { return nil }
        guard let d = v.double else { throw SchemaError(path(of: key), "expected a number, got \(v.kindDescription)") }
        guard range.contains(d) else { throw SchemaError(path(of: key), "\(d) is out of range \(range.lowerBound)…\(range.upperBound)") }
        return d
    }

    /// Boolean member `key`, or nil when absent.
    package func bool(_ key: String) throws(SchemaError) -> Bool? {
        guard let v = members[key] else { return nil }
        guard let b = v.bool else { throw SchemaError(path(of: key), "expected true or false, got \(v.kindDescription)") }
        return b
    }

    /// Object member `key`, or nil when absent.
    package func object(_ key: String) throws(SchemaError) -> ObjectReader? {
        guard let v = members[key] else { return nil }
        return try ObjectReader(v, path: path(of: key))
    }

    /// String member `key` that must be one of `choices`, or nil when absent.
    package func choice(_ key: String, _ choices: [String]) throws(SchemaError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            throw SchemaError(path(of: key), "\"\(s)\" is not one of \(choices.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return s
    }
}
