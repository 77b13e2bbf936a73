/// A capture source's declaration of its options (`Sources/…/<source>-source.json`, registered in
/// `CaptureSourceDeclarations`), read in the extension manifest's format so that a source's
/// options are declared, resolved, listed in `--help` and taken as config keys exactly like an
/// extension's. A source is no handler: every option must be a `setting` of one of its setup keys
/// (its value becomes the source's setting), and its `entry` names the Swift target that holds it.
package enum CaptureSourceManifest {
    /// Reads one declaration; `source` names it in errors.
    /// - Throws: ``ManifestError`` for a document the manifest format refuses, or an option that is
    ///   not a setting.
    package static func parse(_ json: [UInt8], source: String) throws(ManifestError) -> ExtensionManifest {
        let file = "declaration of the capture source \(source)"
        let manifest = try ExtensionManifest.parse(json, file: file)
        for option in manifest.commandLine.options where option.role != .setting {
            throw ManifestError(file: file, message: "--\(option.name): a source's option is a setting of one of its setup keys, not a \(option.role.rawValue)")
        }
        if manifest.commandLine.requestedByDefault {
            throw ManifestError(file: file, message: "commandLine.requestedByDefault: a source is not requested, it is chosen")
        }
        return manifest
    }

    /// Every declaration of `declarations` that parses, in order. A built-in one that does not is
    /// a build defect (a unit test parses each), left out rather than stopping every recording.
    package static func parseAll(_ declarations: [(name: String, json: [UInt8])]) -> [ExtensionManifest] {
        declarations.compactMap { try? parse($0.json, source: $0.name) }
    }
}
