import Synchronization

/// The audio sources a recording can use, by name: "pulse" (PulseAudio, or PipeWire through
/// pipewire-pulse) always; others once their module registers them. The pipeline asks for
/// ``defaultName`` and never names a concrete source. Thread-safe.
package enum AudioSourceRegistry {
    /// Opens a source for a request; `warn` gets non-fatal problems (a missing server or source).
    package typealias Factory = @Sendable (AudioSourceRequest, _ warn: (String) -> Void) -> any AudioSource

    /// The source recordings use.
    package static let defaultName = "pulse"

    private static let factories = Mutex<[String: Factory]>([
        "pulse": { request, warn in PulseAudioSource.open(request, warn: warn) },
    ])

    /// Makes `factory` the source called `name`; `declaration` (UTF-8 JSON, the manifest format)
    /// declares its options (``CaptureSourceDeclarations``).
    package static func register(_ name: String, declaration: [UInt8]? = nil, factory: @escaping Factory) {
        factories.withLock { $0[name] = factory }
        if let declaration { CaptureSourceDeclarations.register(name, json: declaration) }
    }

    /// Opens source `name` (default: ``defaultName``); an unknown name falls back to the default.
    package static func open(_ request: AudioSourceRequest, name: String = defaultName, warn: (String) -> Void) -> any AudioSource {
        let factory = factories.withLock { $0[name] ?? $0[defaultName]! }
        return factory(request, warn)
    }
}
