import RecordKitExtensions
import RecordKitPipeline

extension HandlerFactory {
    /// The registrations for `--extension` requests, resolved in the catalog of built-in
    /// extensions, `extensionsDirectories` and the user's extension directory, with every setup
    /// value checked against the manifest. An unknown or broken extension, or a bad setup value,
    /// is a `bad_argument` error: the recording does not start.
    public static func registrations(for requests: [ExtensionRequest], extensionsDirectories: [String]) throws(ControlError) -> [HandlerRegistration] {
        guard !requests.isEmpty else { return [] }
        do throws(ExtensionError) {
            return try BuiltinExtensions.catalog(extensionsDirectories: extensionsDirectories).registrations(for: requests)
        } catch {
            throw ControlError("bad_argument", error.message)
        }
    }
}
