import RecordKitExtensions

extension StartArguments {
    /// Checks every value as starting would, without starting anything: the capture
    /// configuration, and each requested extension against its manifest in the catalog made of
    /// `builtins` (what the executable links) and the extension directories. Throws `bad_argument`.
    package func check(builtins: [BuiltinExtension]) throws(ControlError) {
        _ = try recordingConfiguration()
        do throws(ExtensionError) {
            _ = try ExtensionCatalog.discover(builtins: builtins, extensionsDirectories: extensionsDirs)
                .registrations(for: extensionRequests())
        } catch {
            throw ControlError(.badArgument, error.message)
        }
    }
}
