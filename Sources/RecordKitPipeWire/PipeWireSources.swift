import RecordKitCapture

/// Registers the PipeWire sources with ``VideoSourceRegistry``: "portal", the Wayland screen
/// through the ScreenCast portal (``PortalScreenCapture``). The executables call it once at
/// start; the pipeline and the service then find the source by name.
package enum PipeWireSources {
    /// Registers "portal" (idempotent).
    package static func register() {
        VideoSourceRegistry.register("portal", monitors: { (_: String?) throws(CaptureError) -> [MonitorInfo] in
            try portalMonitors()
        }, factory: { (configuration: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource in
            try PortalScreenCapture(configuration: configuration)
        })
    }

    /// What the ScreenCast portal offers: one session started without persisting anything
    /// (on a desktop with a dialog, the user picks), its streams listed, then closed.
    static func portalMonitors() throws(CaptureError) -> [MonitorInfo] {
        let portal = try PortalSession()
        defer { portal.close() }
        let (streams, _) = try portal.start(types: 1, cursorMode: portal.availableCursorModes & 1 != 0 ? 1 : 2, persist: false, restoreToken: nil)
        return streams.enumerated().map { index, stream in
            MonitorInfo(index: index, name: "portal-\(stream.nodeID)", isPrimary: index == 0,
                        x: stream.x ?? 0, y: stream.y ?? 0, width: stream.width, height: stream.height)
        }
    }
}
