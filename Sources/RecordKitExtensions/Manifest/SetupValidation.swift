import RecordKit

extension ExtensionManifest {
    /// Checks the user's setup values against the declared keys and returns what the handler
    /// receives: every given value in canonical spelling, plus the defaults of keys not given.
    ///
    /// Fails, naming the key and the expected type, for an unknown key, a value of the wrong type
    /// or a missing required key.
    package func validatedSetup(_ given: [String: String]) throws(ExtensionError) -> SetupInfo {
        var values: [String: String] = [:]
        for key in given.keys.sorted() {
            guard let declared = setupKey(key) else {
                let known = setup.isEmpty ? "it takes no setup keys" : "its keys are: " + setup.map(\.name).joined(separator: ", ")
                throw ExtensionError(.invalidSetup, "extension '\(name)' has no setup key '\(key)'; \(known)")
            }
            guard let value = declared.canonicalValue(given[key]!) else {
                throw ExtensionError(.invalidSetup,
                    "setup key '\(key)' of extension '\(name)' must be \(declared.typeDescription) (\(declared.type.rawValue)), got '\(given[key]!)'")
            }
            values[key] = value
        }
        for key in setup where values[key.name] == nil {
            if let d = key.defaultValue {
                values[key.name] = d
            } else if key.isRequired {
                let about = key.summary.map { ": \($0)" } ?? ""
                throw ExtensionError(.invalidSetup,
                    "extension '\(name)' needs setup key '\(key.name)' (\(key.type.rawValue)\(about)); pass --setup \(key.name)=VALUE")
            }
        }
        return SetupInfo(values)
    }
}
