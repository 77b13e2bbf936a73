import RecordKitExtensionSDK

extension ExtensionManifest {
    /// Reads `commandLine` (absent: no options). Every option must feed a declared setup key of a
    /// fitting type, so an option can never produce a setup the manifest would refuse.
    static func commandLine(_ o: ObjectReader?, setup: [SetupKey]) throws(SchemaError) -> CommandLineSurface {
        guard let o else { return CommandLineSurface() }
        try o.allowOnly(["requestedByDefault", "options"])
        var options: [OptionDeclaration] = []
        if let list = o.members["options"] {
            guard let items = list.array else { throw SchemaError(o.path(of: "options"), "expected an array, got \(list.kindDescription)") }
            for (i, item) in items.enumerated() {
                let option = try self.option(try ObjectReader(item, path: "\(o.path(of: "options"))[\(i)]"), setup: setup)
                if options.contains(where: { $0.name == option.name || ($0.short != nil && $0.short == option.short) }) {
                    throw SchemaError("\(o.path(of: "options"))[\(i)]", "--\(option.name) is declared twice")
                }
                options.append(option)
            }
        }
        return CommandLineSurface(requestedByDefault: try o.bool("requestedByDefault") ?? false, options: options)
    }

    private static func option(_ k: ObjectReader, setup: [SetupKey]) throws(SchemaError) -> OptionDeclaration {
        try k.allowOnly(["name", "short", "role", "type", "setup", "valueName", "help", "minimum", "maximum", "choices",
                         "repeatable", "secret", "environment", "implicitValue", "excludes"])
        let name = try k.requiredString("name")
        guard isValidName(name) else { throw SchemaError(k.path(of: "name"), "\"\(name)\" is not a valid option name: lowercase letters, digits and '-'") }
        var short: Character?
        if let s = try k.string("short") {
            guard s.count == 1, let c = s.first, c.isLetter else { throw SchemaError(k.path(of: "short"), "one letter") }
            short = c
        }
        guard let role = try k.choice("role", OptionDeclaration.Role.allCases.map(\.rawValue)).flatMap(OptionDeclaration.Role.init(rawValue:)) else {
            throw SchemaError(k.path(of: "role"), "missing (required): \"request\", \"setting\", \"disable\" or \"key-file\"")
        }
        let type = try k.choice("type", OptionDeclaration.ValueType.allCases.map(\.rawValue)).flatMap(OptionDeclaration.ValueType.init(rawValue:)) ?? .flag
        let setupName = try k.string("setup")
        if let setupName {
            guard let key = setup.first(where: { $0.name == setupName }) else {
                throw SchemaError(k.path(of: "setup"), "\"\(setupName)\" is not a setup key of this extension")
            }
            let fits: Bool
            switch type {
            case .flag: fits = key.type == .bool || key.type == .string
            case .string, .path: fits = key.type == .string
            case .int: fits = key.type == .int || key.type == .string
            case .double: fits = key.type == .double || key.type == .string
            }
            guard fits else { throw SchemaError(k.path(of: "type"), "a \(type.rawValue) option cannot feed the \(key.type.rawValue) setup key \"\(setupName)\"") }
        }
        switch role {
        case .setting, .keyFile:
            guard setupName != nil else { throw SchemaError(k.path(of: "setup"), "missing: a \(role.rawValue) option feeds a setup key") }
        case .disable:
            guard type == .flag, setupName == nil else { throw SchemaError(k.path(of: "role"), "a disable option is a flag and feeds no setup key") }
        case .request:
            break
        }
        if role == .keyFile && type != .path { throw SchemaError(k.path(of: "type"), "a key-file option takes a path") }
        let implicitValue = try k.string("implicitValue")
        if implicitValue != nil && type == .flag { throw SchemaError(k.path(of: "implicitValue"), "a flag takes no value") }
        let help = try k.requiredString("help")
        var excludes: [String] = []
        if let list = k.members["excludes"] {
            guard let items = list.array else { throw SchemaError(k.path(of: "excludes"), "expected an array of option names") }
            for item in items {
                guard let other = item.string, isValidName(other), other != name else {
                    throw SchemaError(k.path(of: "excludes"), "expected option names without -- (not the option itself)")
                }
                excludes.append(other)
            }
        }
        var option = OptionDeclaration(name: name, short: short, role: role, type: type, setup: setupName, valueName: try k.string("valueName"),
                                 help: help, minimum: try k.double("minimum"), maximum: try k.double("maximum"),
                                 choices: try choices(k), repeatable: try k.bool("repeatable") ?? false,
                                 secret: try k.bool("secret") ?? false, environment: try k.string("environment"),
                                 implicitValue: implicitValue)
        option.excludes = excludes
        return option
    }

    private static func choices(_ k: ObjectReader) throws(SchemaError) -> [String]? {
        guard let v = k.members["choices"] else { return nil }
        guard let items = v.array, !items.isEmpty else { throw SchemaError(k.path(of: "choices"), "expected a non-empty array of strings") }
        var result: [String] = []
        for item in items {
            guard let s = item.string else { throw SchemaError(k.path(of: "choices"), "expected strings, got \(item.kindDescription)") }
            result.append(s)
        }
        return result
    }
}
