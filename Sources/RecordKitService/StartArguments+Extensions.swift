import RecordKitBuiltins
import RecordKitExtensions

extension StartArguments {
    /// Checks every value as starting would, without starting anything: the capture
    /// configuration, and each requested extension against its manifest. Throws `bad_argument`.
    public func check() throws(ControlError) {
        _ = try recordingConfiguration()
        do throws(ExtensionError) {
            _ = try BuiltinExtensions.catalog(extensionsDirectories: extensionsDirs).registrations(for: extensionRequests())
        } catch {
            throw ControlError(.badArgument, error.message)
        }
    }
}
