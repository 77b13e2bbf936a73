import RecordKit
import RecordKitExtensionSDK

extension ExtensionManifest {
    /// The manifest format version this host reads (`manifestVersion`, optional, 1).
    package static let formatVersion = 1

    /// Reads a manifest from the UTF-8 JSON in `bytes`; `file` names it in errors.
    ///
    /// Strict: unknown members (except top-level `x-…` ones, kept for the author's own use), wrong types,
    /// values out of range and contradictions (a required key with a default) are errors that
    /// name the member's path, so a broken manifest says what to fix.
    package static func parse(_ bytes: some Collection<UInt8>, file: String) throws(ManifestError) -> ExtensionManifest {
        let json: JSONValue
        do throws(JSONParseError) { json = try JSONParser.parse(bytes) } catch {
            throw ManifestError(file: file, message: "not valid JSON: \(error)")
        }
        do throws(SchemaError) { return try parse(json) } catch {
            throw ManifestError(file: file, message: error.description)
        }
    }

    static func parse(_ json: JSONValue) throws(SchemaError) -> ExtensionManifest {
        let o = try ObjectReader(json, path: "")
        try o.allowOnly(["$schema", "manifestVersion", "name", "version", "description", "entry", "input", "setup", "limits", "commandLine"], custom: true)
        if let v = try o.int("manifestVersion"), v != Int64(formatVersion) {
            throw SchemaError("manifestVersion", "this RecordKit reads manifest version \(formatVersion), got \(v)")
        }
        let name = try o.requiredString("name")
        guard isValidName(name) else {
            throw SchemaError("name", "\"\(name)\" is not a valid name: 1–64 lowercase letters, digits and '-', starting with a letter")
        }
        let version = try o.requiredString("version")
        guard isValidVersion(version) else {
            throw SchemaError("version", "\"\(version)\" is not MAJOR.MINOR.PATCH (optionally followed by -suffix)")
        }
        let entry = try entry(try ObjectReader(try o.required("entry"), path: "entry"))
        // One source of truth for the input: a process's manifest declares it (the recorder needs
        // it before the process runs); a built-in extension's Swift type does (its handler's `input`).
        let input: HandlerInput
        switch entry {
        case .executable:
            input = try HandlerInput(json: try o.required("input"), path: "input")
        case .swiftTarget:
            // Built-ins ship without one (their Swift type is the source); ``BuiltinExtension`` sets it.
            input = try o.object("input") == nil ? HandlerInput(video: .none) : try HandlerInput(json: try o.required("input"), path: "input")
        }
        let setup = try setupKeys(try o.object("setup"))
        var manifest = ExtensionManifest(name: name, version: version, summary: try o.string("description"),
                                         entry: entry, input: input, setup: setup,
                                         limits: try limits(try o.object("limits")))
        manifest.commandLine = try commandLine(try o.object("commandLine"), setup: setup)
        return manifest
    }

    private static func entry(_ o: ObjectReader) throws(SchemaError) -> Entry {
        try o.allowOnly(["swiftTarget", "executable"])
        switch (try o.string("swiftTarget"), try o.string("executable")) {
        case (let target?, nil):
            guard !target.isEmpty else { throw SchemaError("entry.swiftTarget", "empty") }
            return .swiftTarget(target)
        case (nil, let path?):
            guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                throw SchemaError("entry.executable", "\"\(path)\" must be a path inside the extension's directory (relative, no '..')")
            }
            return .executable(path)
        default:
            throw SchemaError("entry", "give exactly one of \"executable\" (a program in the extension's directory) or \"swiftTarget\" (built-in)")
        }
    }

    private static func setupKeys(_ o: ObjectReader?) throws(SchemaError) -> [SetupKey] {
        guard let o else { return [] }
        var keys: [SetupKey] = []
        for name in o.members.keys.sorted() {
            let path = o.path(of: name)
            guard isValidSetupKey(name) else {
                throw SchemaError(path, "\"\(name)\" is not a valid key: 1–64 letters, digits, '_', '-' or '.', starting with a letter")
            }
            let k = try ObjectReader(o.members[name]!, path: path)
            try k.allowOnly(["type", "required", "default", "description"])
            guard let type = try k.choice("type", SetupKey.ValueType.allCases.map(\.rawValue)).flatMap(SetupKey.ValueType.init(rawValue:)) else {
                throw SchemaError(k.path(of: "type"), "missing (required): \"string\", \"int\", \"bool\" or \"double\"")
            }
            let required = try k.bool("required") ?? false
            var defaultValue: String?
            if let d = k.members["default"] {
                guard !required else { throw SchemaError(k.path(of: "default"), "a required key cannot have a default") }
                defaultValue = try canonicalDefault(d, type: type, path: k.path(of: "default"))
            }
            keys.append(SetupKey(name: name, type: type, isRequired: required, defaultValue: defaultValue, summary: try k.string("description")))
        }
        return keys
    }

    private static func canonicalDefault(_ v: JSONValue, type: SetupKey.ValueType, path: String) throws(SchemaError) -> String {
        switch (type, v) {
        case (.string, .string(let s)): return s
        case (.int, .int(let i)): return String(i)
        case (.bool, .bool(let b)): return b ? "true" : "false"
        case (.double, _) where v.double != nil: return String(v.double!)
        default: throw SchemaError(path, "expected a default of type \(type.rawValue), got \(v.kindDescription)")
        }
    }

    private static func limits(_ o: ObjectReader?) throws(SchemaError) -> ExtensionLimits {
        var limits = ExtensionLimits()
        guard let o else { return limits }
        try o.allowOnly(["memoryMB", "callTimeoutMs", "lifecycleTimeoutMs"])
        if let v = try o.int("memoryMB", in: ExtensionLimits.memoryRange) { limits.memoryMB = Int(v) }
        if let v = try o.int("callTimeoutMs", in: ExtensionLimits.callTimeoutRange) { limits.callTimeoutMs = Int(v) }
        if let v = try o.int("lifecycleTimeoutMs", in: ExtensionLimits.lifecycleTimeoutRange) { limits.lifecycleTimeoutMs = Int(v) }
        return limits
    }

    /// Whether `name` is a valid extension name.
    package static func isValidName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        guard (1...64).contains(u.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(u[0]) else { return false }
        return u.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isValidSetupKey(_ name: String) -> Bool {
        let u = Array(name.utf8)
        func letter(_ c: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c | 0x20) }
        guard (1...64).contains(u.count), letter(u[0]) else { return false }
        return u.allSatisfy { letter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ".")].contains($0) }
    }

    private static func isValidVersion(_ version: String) -> Bool {
        let core = version.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let numbers = core[0].split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 3, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return false }
        return core.count == 1 || !core[1].isEmpty
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
