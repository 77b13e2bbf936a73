extension StartArguments {
    /// The `--extension NAME` requests with the `--setup` values meant for each: `key=value`
    /// when there is one extension, `NAME:key=value` when there are several. Throws
    /// `bad_argument` for a malformed or unattributable value.
    package static func extensionRequests(names: [String], setup: [String]) throws(ControlError) -> [ExtensionRequest] {
        var requests = names.map { ExtensionRequest(name: $0) }
        if !setup.isEmpty && requests.isEmpty { throw ControlError(.badArgument, "--setup needs an --extension to apply to") }
        for argument in setup {
            guard let eq = argument.firstIndex(of: "=") else { throw ControlError(.badArgument, "--setup \(argument): expected key=value") }
            var key = String(argument[..<eq])
            let value = String(argument[argument.index(after: eq)...])
            var target: Int?
            if let colon = key.firstIndex(of: ":") {
                let name = String(key[..<colon])
                key = String(key[key.index(after: colon)...])
                target = requests.firstIndex { $0.name == name }
                guard target != nil else {
                    throw ControlError(.badArgument, "--setup \(argument): '\(name)' is not one of the --extension names")
                }
            } else if requests.count == 1 {
                target = 0
            } else {
                throw ControlError(.badArgument, "--setup \(argument): with several --extension, say which one: NAME:\(argument)")
            }
            guard let index = target, !key.isEmpty else { throw ControlError(.badArgument, "--setup \(argument): the key is empty") }
            requests[index].setup[key] = value
        }
        return requests
    }
}
