import RecordKitExtensions

extension StartArguments {
    /// Checks every value as starting would, without starting anything: the capture
    /// configuration, and each requested extension against its manifest in the catalog made of
    /// `builtins` (what the executable links) and the extension directories. Throws `bad_argument`;
    /// returns warnings for the user (a key file others can read).
    @discardableResult
    package func check(builtins: [BuiltinExtension]) throws(ControlError) -> [String] {
        let catalog = ExtensionCatalog.discover(builtins: builtins, extensionsDirectories: extensionsDirs)
        let resolution = try extensionRequests(catalog: catalog)
        _ = try recordingConfiguration(sourceSettings: resolution.sourceSettings)
        do throws(ExtensionError) {
            _ = try catalog.registrations(for: resolution.requests)
        } catch {
            throw ControlError(.badArgument, error.message)
        }
        return resolution.warnings
    }

    /// The options every capture source and every extension of the catalog declare (`builtins`
    /// and those in `extensionsDirectories`), as `recordctl record --help` lists them after its own.
    package static func outputOptionsHelp(builtins: [BuiltinExtension], extensionsDirectories: [String]) -> String {
        OptionHelp.text(resolver(catalog: ExtensionCatalog.discover(builtins: builtins, extensionsDirectories: extensionsDirectories)))
    }

    /// What is wrong with output options set in a config file, checked against the options the
    /// catalog's extensions declare (`builtins` and the user's extensions): an unknown key, a
    /// value of the wrong type or out of range; one message per key, each with its line.
    package static func configuredOptionProblems(_ options: [ConfiguredOption], builtins: [BuiltinExtension]) -> [String] {
        configuredOptionProblems(options, resolver: resolver(catalog: ExtensionCatalog.discover(builtins: builtins)))
    }
}
