import RecordKit

/// An extension built into the recorder: the manifest it ships in `Extensions/<Name>/` and how
/// to make its handler from validated setup values. Runs in-process, through the same manifest,
/// setup validation and `BroadcastSampleHandler` contract as any other extension.
public struct BuiltinExtension: Sendable {
    /// The manifest, or why it does not parse (a build defect, reported like any broken extension).
    public let manifest: Result<ExtensionManifest, ManifestError>
    /// The Swift target that implements it; the manifest's `entry.swiftTarget` must name it.
    public let target: String
    /// Makes a handler from setup values already checked against the manifest; throws
    /// (``BroadcastError/Kind/invalidSetup``) for a value the types cannot rule out.
    public let makeHandler: @Sendable (SetupInfo) throws(BroadcastError) -> any BroadcastSampleHandler

    /// Describes a built-in extension whose manifest is the UTF-8 JSON `manifestJSON`.
    public init(manifestJSON: [UInt8], target: String,
                makeHandler: @escaping @Sendable (SetupInfo) throws(BroadcastError) -> any BroadcastSampleHandler) {
        let label = "built-in manifest of \(target)"
        self.manifest = Result { () throws(ManifestError) in try ExtensionManifest.parse(manifestJSON, file: label) }
        self.target = target
        self.makeHandler = makeHandler
    }
}
