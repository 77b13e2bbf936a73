import RecordKit

/// An extension built into the recorder: the manifest it ships in `Extensions/<Name>/` and how
/// to make its handler from validated setup values. Runs in-process, through the same manifest,
/// setup validation and `BroadcastSampleHandler` contract as any other extension.
package struct BuiltinExtension: Sendable {
    /// The manifest, or why it does not parse (a build defect, reported like any broken extension).
    package let manifest: Result<ExtensionManifest, ManifestError>
    /// The Swift target that implements it; the manifest's `entry.swiftTarget` must name it.
    package let target: String
    /// Makes a handler from setup values already checked against the manifest; throws
    /// (``BroadcastError/Kind/invalidSetup``) for a value the types cannot rule out.
    package let makeHandler: @Sendable (SetupInfo) throws(BroadcastError) -> any BroadcastSampleHandler
    /// Its recovery hook (``RecoverableBroadcastHandler/recover(workingDirectory:)``), if it has one.
    package let recover: (@Sendable (String) throws(BroadcastError) -> [String])?

    /// Describes a built-in extension whose manifest is the UTF-8 JSON `manifestJSON` and whose
    /// handler, declared in Swift, wants `input`. A built-in's manifest carries no input: the
    /// Swift type is the one source of truth, and listings show this value.
    package init(manifestJSON: [UInt8], target: String, input: HandlerInput,
                recover: (@Sendable (String) throws(BroadcastError) -> [String])? = nil,
                makeHandler: @escaping @Sendable (SetupInfo) throws(BroadcastError) -> any BroadcastSampleHandler) {
        let label = "built-in manifest of \(target)"
        self.manifest = Result { () throws(ManifestError) in
            var manifest = try ExtensionManifest.parse(manifestJSON, file: label)
            manifest.input = input
            return manifest
        }
        self.target = target
        self.recover = recover
        self.makeHandler = makeHandler
    }
}
