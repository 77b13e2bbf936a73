/// One setup key an extension declares: a name the user passes as `--setup name=value`, the
/// type the value must have, and whether it is required or has a default.
package struct SetupKey: Sendable, Equatable {
    /// The types a setup value can have. Values reach the handler as text in ``SetupInfo``, in
    /// a canonical spelling: integers in decimal, booleans `true` / `false`, numbers as Swift
    /// prints a `Double` (`2.0`, `0.5`).
    package enum ValueType: String, Sendable, Equatable, CaseIterable {
        /// Any text.
        case string
        /// A 64-bit signed integer.
        case int
        /// `true`/`false` (also accepted: `yes`/`no`, `on`/`off`, `1`/`0`).
        case bool
        /// A finite number.
        case double
    }

    /// The key's name.
    package var name: String
    /// The value's type.
    package var type: ValueType
    /// Whether the user must give a value.
    package var isRequired: Bool
    /// The value used when the user gives none (canonical text), if any.
    package var defaultValue: String?
    /// What the key means, for `recordctl extensions`.
    package var summary: String?

    /// Creates a key.
    package init(name: String, type: ValueType, isRequired: Bool = false, defaultValue: String? = nil, summary: String? = nil) {
        self.name = name
        self.type = type
        self.isRequired = isRequired
        self.defaultValue = defaultValue
        self.summary = summary
    }

    /// `text` in canonical spelling, or nil when it is not a value of ``type``.
    package func canonicalValue(_ text: String) -> String? {
        switch type {
        case .string:
            return text
        case .int:
            return Int64(text).map { String($0) }
        case .double:
            guard let d = Double(text.trimmingWhitespace), d.isFinite else { return nil }
            return String(d)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "on", "1": return "true"
            case "false", "no", "off", "0": return "false"
            default: return nil
            }
        }
    }

    /// How the type reads in error messages: "an integer", "true or false".
    package var typeDescription: String {
        switch type {
        case .string: return "text"
        case .int: return "an integer"
        case .bool: return "true or false"
        case .double: return "a number"
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingWhitespace: Substring {
        var s = self[...]
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
