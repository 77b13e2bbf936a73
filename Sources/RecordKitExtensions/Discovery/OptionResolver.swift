import Foundation
import RecordKitControl

/// Turns the options a client forwarded (`recordctl record --rtmp URL -o x.mp4 --camera …`, as
/// words) into extension requests and capture source settings, using only what each extension's
/// manifest and each capture source's declaration (the same format, every option a
/// ``OptionDeclaration/Role/setting``) declare (``CommandLineSurface``): the service and the command
/// line know no extension's or source's options. Pure: reads only a key file a
/// ``OptionDeclaration/Role/keyFile`` option names.
package struct OptionResolver: Sendable {
    /// The requests, in catalog order (built-ins first), warnings for the user (a key file
    /// others can read), and the capture sources' settings.
    package struct Resolution: Sendable, Equatable {
        package var requests: [ExtensionRequest]
        package var warnings: [String]
        /// Each capture source's settings, by source name, then by setup key (`["camera": ["name": "*"]]`):
        /// the configured ones with those given over them.
        package var sourceSettings: [String: [String: String]] = [:]
    }

    /// Each usable extension that declares a command-line surface, in catalog order.
    let surfaces: [(name: String, manifest: ExtensionManifest)]
    /// The capture sources' declarations, in registration order.
    let sources: [ExtensionManifest]

    /// How a source's name is kept among the extensions' names in a ``Use``: a space can never be part of one.
    static let sourcePrefix = "source "

    /// A resolver over `catalog`'s usable extensions and the capture sources' declarations
    /// `sources` (``CaptureSourceDeclarations``). An option spelled twice belongs to the source, then
    /// to the first extension (the built-ins come first).
    package init(catalog: ExtensionCatalog, sources: [ExtensionManifest] = []) {
        self.sources = sources
        surfaces = catalog.entries.compactMap { entry in entry.manifest.map { (entry.name, $0) } }
    }

    /// Every option the capture sources declare, as (source, option), in registration order.
    package var sourceDeclarations: [(source: String, option: OptionDeclaration)] {
        sources.flatMap { source in source.commandLine.options.map { (source.name, $0) } }
    }

    /// The declaration and extension (a source as ``sourcePrefix`` and its name) for `--name` or
    /// `-c`, if a source or an extension declares it.
    func declaration(long name: String? = nil, short: Character? = nil) -> (extension: String, option: OptionDeclaration)? {
        for source in sources {
            if let option = source.commandLine.options.first(where: { (name != nil && $0.name == name) || (short != nil && $0.short == short) }) {
                return (Self.sourcePrefix + source.name, option)
            }
        }
        for surface in surfaces {
            if let option = surface.manifest.commandLine.options.first(where: { (name != nil && $0.name == name) || (short != nil && $0.short == short) }) {
                return (surface.name, option)
            }
        }
        return nil
    }

    /// Every declared option as (extension, option), in catalog order, first spelling winning.
    package var declarations: [(extension: String, option: OptionDeclaration)] {
        var seen: Set<String> = []
        var result: [(extension: String, option: OptionDeclaration)] = []
        for surface in surfaces {
            for option in surface.manifest.commandLine.options where seen.insert(option.name).inserted { result.append((surface.name, option)) }
        }
        return result
    }

    /// One option as given: its extension, its declaration, its checked value.
    typealias Use = (extension: String, option: OptionDeclaration, value: String?)

    /// Resolves `words` (options and their values, as typed) over `configured` (the config file's
    /// and its profile's): an option given in `words` replaces the configured one, and a
    /// disable option (`--no-file`) or any other option of the same extension given there drops the
    /// defaults that would contradict it. `encoding` (the codec choices) goes to every request
    /// whose manifest declares the key; a relative path is made absolute against
    /// `workingDirectory`; a key-file option falls back on `environment`. Throws `bad_argument`
    /// for an unknown option, a missing or malformed value, a setting for an extension not
    /// requested, or options that contradict each other; messages never quote a secret value.
    package func resolve(_ words: [String], configured: [ConfiguredOption] = [], encoding: [String: String] = [:], workingDirectory: String? = nil,
                         environment: [String: String] = [:]) throws(ControlError) -> Resolution {
        let given = try parse(words, workingDirectory: workingDirectory)
        try Self.checkExclusions(given)
        let merged = try uses(of: configured, workingDirectory: workingDirectory).filter { d in
            !given.contains { g in
                g.option.name == d.option.name
                    || (g.extension == d.extension && (g.option.role == .disable || d.option.role == .disable))
                    || Self.exclude(g.option, d.option)  // a configured option gives way to one given that excludes it
            }
        }
        try Self.checkExclusions(merged, configured: configured)
        // Options only the config sets for an extension nothing requests (a CA file for streams, a
        // recording without one) are left out; given on the command line, they are an error below.
        var uses: [String: [(option: OptionDeclaration, value: String?)]] = [:]
        for use in merged + given { uses[use.extension, default: []].append((use.option, use.value)) }
        // A source's options set its settings, the given ones over the configured ones; they request nothing.
        var sourceSettings: [String: [String: String]] = [:]
        for (key, used) in uses where key.hasPrefix(Self.sourcePrefix) {
            let source = String(key.dropFirst(Self.sourcePrefix.count))
            for use in used { sourceSettings[source, default: [:]][use.option.setup ?? use.option.name] = use.value ?? "true" }
            uses[key] = nil
        }
        for (name, used) in uses where !given.contains(where: { $0.extension == name }) {
            let requested = used.contains { $0.option.role == .request }
                || surfaces.first { $0.name == name }?.manifest.commandLine.requestedByDefault == true
            if !requested { uses[name] = nil }
        }
        var resolution = Resolution(requests: [], warnings: [], sourceSettings: sourceSettings)
        for surface in surfaces {
            let used = uses[surface.name] ?? []
            guard surface.manifest.commandLine.requestedByDefault || !used.isEmpty else { continue }
            resolution.requests += try requests(for: surface.name, manifest: surface.manifest, used: used, encoding: encoding,
                                                environment: environment, warnings: &resolution.warnings)
        }
        return resolution
    }

    /// `words` as uses of declared options, values checked; throws for an unknown option, a
    /// missing or malformed value, or a non-repeatable option given twice.
    func parse(_ words: [String], workingDirectory: String?) throws(ControlError) -> [Use] {
        var result: [Use] = []
        var i = 0
        while i < words.count {
            let word = words[i]
            i += 1
            var inline: String?
            let found: (extension: String, option: OptionDeclaration)?
            if word.hasPrefix("--"), word.count > 2 {
                var name = String(word.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                found = declaration(long: name)
                guard found != nil else { throw unknown("--\(name)") }
            } else if word.hasPrefix("-"), word.count == 2, let c = word.last {
                found = declaration(short: c)
                guard found != nil else { throw unknown(word) }
            } else {
                throw ControlError(.badArgument, "unexpected argument '\(SecretRedactor.redact(word))': options start with --; `recordctl record --help` lists them")
            }
            guard let (ext, option) = found else { continue }
            var value: String?
            if option.takesValue {
                let alone = i >= words.count || (words[i].hasPrefix("-") && words[i].count > 1 && Double(words[i]) == nil)
                if let inline { value = inline } else if alone, let implicit = option.implicitValue { value = implicit } else {
                    guard !alone else {
                        throw ControlError(.badArgument, "--\(option.name) needs a value (\(option.valueName ?? option.type.rawValue))")
                    }
                    value = words[i]
                    i += 1
                }
                value = try checked(value!, for: option, workingDirectory: workingDirectory)
            } else if inline != nil {
                throw ControlError(.badArgument, "--\(option.name) is a switch and takes no value")
            }
            if option.role != .request || !option.repeatable, result.contains(where: { $0.option.name == option.name }) {
                throw ControlError(.badArgument, "--\(option.name) is given twice; give it once")
            }
            result.append((ext, option, value))
        }
        return result
    }

    /// The configured options as uses, each checked like its command-line spelling; a mistake is
    /// reported with the line it was written on.
    func uses(of configured: [ConfiguredOption], workingDirectory: String?) throws(ControlError) -> [Use] {
        var result: [Use] = []
        for item in configured {
            guard let (ext, option) = declaration(long: item.name) else {
                let known = declarations.map(\.option.name).joined(separator: ", ")
                let captured = sourceDeclarations.map(\.option.name).joined(separator: ", ")
                throw ControlError(.badArgument, "\(item.origin): unknown key \"\(item.name)\"; the outputs' keys are \(known); "
                                   + (captured.isEmpty ? "" : "the capture sources' keys are \(captured); ")
                                   + "the capture, hook and encoding keys are in docs/CONFIG.md")
            }
            let expected: String
            switch option.type {
            case .flag: expected = "true or false"
            case .string: expected = option.choices.map { "one of " + $0.joined(separator: ", ") } ?? "a string"
            case .path: expected = "a path (a string)"
            case .int: expected = "an integer"
            case .double: expected = "a number"
            }
            let values: [ConfiguredOption.Value]
            switch item.value {
            case .bool(let on) where option.type == .flag:
                if on { result.append((ext, option, "true")) }
                continue
            case .list(let items) where option.role == .request && option.repeatable:
                values = items
            default:
                values = [item.value]
            }
            for value in values {
                guard option.type != .flag, let text = value.text else {
                    throw ControlError(.badArgument, "\(item.origin): \(item.name) must be \(option.repeatable ? "\(expected) or a list of them" : expected), not \(value.kind)")
                }
                do throws(ControlError) {
                    result.append((ext, option, try checked(text, for: option, workingDirectory: workingDirectory, label: item.name)))
                } catch {
                    throw ControlError(.badArgument, "\(item.origin): \(error.message)")
                }
            }
        }
        return result
    }

    private func requests(for name: String, manifest: ExtensionManifest, used: [(option: OptionDeclaration, value: String?)],
                          encoding: [String: String], environment: [String: String],
                          warnings: inout [String]) throws(ControlError) -> [ExtensionRequest] {
        let disable = used.first { $0.option.role == .disable }
        let others = used.filter { $0.option.role != .disable }
        if let disable {
            guard others.isEmpty else {
                throw ControlError(.badArgument, "--\(disable.option.name) contradicts " + others.map { "--\($0.option.name)" }.joined(separator: ", "))
            }
            return []
        }
        var instances: [[String: String]] = used.filter { $0.option.role == .request }.map { use in
            use.option.setup.map { [$0: use.value ?? "true"] } ?? [:]
        }
        let settings = used.filter { $0.option.role == .setting }
        if instances.isEmpty {
            if manifest.commandLine.requestedByDefault {
                instances = [[:]]
            } else if let first = settings.first ?? used.first {
                let requesting = manifest.commandLine.options.filter { $0.role == .request }.map { "--\($0.name)" }
                throw ControlError(.badArgument, "--\(first.option.name) needs \(requesting.isEmpty ? "--extension \(name)" : requesting.joined(separator: " or "))")
            }
        }
        for setting in settings {
            for i in instances.indices { instances[i][setting.option.setup!] = setting.value ?? "true" }
        }
        for keyOption in manifest.commandLine.options where keyOption.role == .keyFile {
            let file = used.first { $0.option.name == keyOption.name }?.value
            guard let loaded = try RTMPStreamKey.load(file: file, environment: environment, variable: keyOption.environment, option: "--\(keyOption.name)") else { continue }
            if let warning = loaded.warning { warnings.append(warning) }
            if file == nil && instances.allSatisfy({ $0[keyOption.setup!] == nil }) { continue }  // an environment key, for no URL
            let key = keyOption.setup!
            let values = try RTMPStreamKey.apply(loaded.key, to: instances.map { $0[key] ?? "" })
            for i in instances.indices where !(instances[i][key] ?? "").isEmpty { instances[i][key] = values[i] }
        }
        let declared = Set(manifest.setup.map(\.name))
        return instances.map { setup in
            ExtensionRequest(name: name, setup: setup.merging(encoding.filter { declared.contains($0.key) }) { own, _ in own })
        }
    }

    /// `value` checked against the option's type, in the spelling its setup key takes.
    private func checked(_ value: String, for option: OptionDeclaration, workingDirectory: String?,
                         label: String? = nil) throws(ControlError) -> String {
        let shown = option.secret ? "(not shown)" : "'\(value)'"
        let name = label ?? "--\(option.name)"
        switch option.type {
        case .flag:
            return "true"
        case .string:
            if let choices = option.choices, !choices.contains(value) {
                throw ControlError(.badArgument, "\(name) \(shown): expected one of \(choices.joined(separator: ", "))")
            }
            return value
        case .path:
            guard !value.isEmpty else { throw ControlError(.badArgument, "\(name): the path is empty") }
            if value.hasPrefix("/") { return value }
            let base = workingDirectory ?? FileManager.default.currentDirectoryPath
            return URL(fileURLWithPath: value, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
        case .int, .double:
            let number = option.type == .int ? Int(value).map(Double.init) : Double(value).flatMap { $0.isFinite ? $0 : nil }
            guard let number else {
                throw ControlError(.badArgument, "\(name) \(shown): expected \(option.type == .int ? "an integer" : "a number")")
            }
            if let minimum = option.minimum, number < minimum { throw outOfRange(option, value, name) }
            if let maximum = option.maximum, number > maximum { throw outOfRange(option, value, name) }
            return option.type == .int ? String(Int(number)) : value
        }
    }

    private func outOfRange(_ option: OptionDeclaration, _ value: String, _ name: String) -> ControlError {
        let low = option.minimum.map(Self.number) ?? "…"
        let high = option.maximum.map(Self.number) ?? "…"
        return ControlError(.badArgument, "\(name) must be between \(low) and \(high), got \(value)")
    }

    private static func number(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }

    private func unknown(_ spelling: String) -> ControlError {
        ControlError(.badArgument, "unknown option \(SecretRedactor.redact(spelling)): `recordctl record --help` lists every option")
    }
}
