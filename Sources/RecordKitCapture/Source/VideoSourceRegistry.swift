import Glibc
import Synchronization

/// The video sources a recording can use, by name: "x11" (``ScreenCapture``) always, others
/// (the ScreenCast portal's "portal") once their module registers them; the executables do that
/// at start, so the pipeline and the service never name a concrete source.
///
/// Thread-safe. Register before recordings start; a later registration of a name replaces it.
package enum VideoSourceRegistry {
    /// Opens a source for a configuration; throws a ``CaptureError`` that says what to do.
    package typealias Factory = @Sendable (ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource

    /// Lists the monitors a source can record (`recordctl monitors`), for an X display name or nil.
    package typealias MonitorLister = @Sendable (_ display: String?) throws(CaptureError) -> [MonitorInfo]

    private static let listers = Mutex<[String: MonitorLister]>([
        "x11": { (display: String?) throws(CaptureError) -> [MonitorInfo] in try MonitorList.list(display: display) },
    ])

    private static let factories = Mutex<[String: Factory]>([
        "x11": { (configuration: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource in
            try ScreenCapture(configuration: configuration)
        },
    ])

    /// Makes `factory` the source called `name`; `declaration` (UTF-8 JSON, the manifest format)
    /// declares its options (``CaptureSourceDeclarations``), which reach the factory as
    /// ``ScreenCaptureConfiguration/settings``.
    package static func register(_ name: String, declaration: [UInt8]? = nil, monitors: MonitorLister? = nil, factory: @escaping Factory) {
        factories.withLock { $0[name] = factory }
        if let declaration { CaptureSourceDeclarations.register(name, json: declaration) }
        if let monitors { listers.withLock { $0[name] = monitors } }
    }

    /// The monitors source `source` (nil: chosen as ``resolvedName(for:)`` does) offers.
    /// - Throws: `.unknownSource` for a source that cannot list monitors, or the source's error.
    package static func monitors(source: String?, display: String?) throws(CaptureError) -> [MonitorInfo] {
        var configuration = ScreenCaptureConfiguration(display: display)
        configuration.source = source
        let name = resolvedName(for: configuration)
        guard let lister = listers.withLock({ $0[name] }) else {
            throw CaptureError(.unknownSource, "the video source '\(name)' cannot list monitors")
        }
        return try lister(display)
    }

    /// The registered names, sorted.
    package static var names: [String] { factories.withLock { $0.keys.sorted() } }

    /// The source `configuration` asks for: its ``ScreenCaptureConfiguration/source``, or when
    /// nil "portal" in a Wayland session without X (`WAYLAND_DISPLAY` set, no display named
    /// and `DISPLAY` unset) if a portal source is registered, else "x11".
    package static func resolvedName(for configuration: ScreenCaptureConfiguration) -> String {
        if let source = configuration.source { return source }
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        if configuration.display == nil, environment("DISPLAY") == nil, environment("WAYLAND_DISPLAY") != nil,
           factories.withLock({ $0["portal"] != nil }) {
            return "portal"
        }
        return "x11"
    }

    /// Opens the source `configuration` asks for (``resolvedName(for:)``).
    /// - Throws: `.unknownSource` for a name nobody registered, or the source's own error.
    package static func open(_ configuration: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource {
        let name = resolvedName(for: configuration)
        guard let factory = factories.withLock({ $0[name] }) else {
            throw CaptureError(.unknownSource, "no video source called '\(name)': use one of \(names.joined(separator: ", "))")
        }
        return try factory(configuration)
    }
}
