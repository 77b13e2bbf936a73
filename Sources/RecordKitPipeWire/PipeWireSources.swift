import RecordKitCapture

/// Registers the PipeWire sources with ``VideoSourceRegistry``: "portal", the Wayland screen
/// through the ScreenCast portal (``PortalScreenCapture``). The executables call it once at
/// start; the pipeline and the service then find the source by name.
package enum PipeWireSources {
    /// Registers "portal" (idempotent).
    package static func register() {
        VideoSourceRegistry.register("portal") { (configuration: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource in
            try PortalScreenCapture(configuration: configuration)
        }
    }
}
