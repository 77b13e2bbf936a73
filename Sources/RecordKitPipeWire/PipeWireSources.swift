import RecordKitCapture

/// Registers the PipeWire sources with ``VideoSourceRegistry``: "portal", the Wayland screen
/// through the ScreenCast portal (``PortalScreenCapture``); and with ``CameraSourceRegistry``:
/// PipeWire's camera nodes (``PipeWireCamera``). The executables call it once at start; the
/// pipeline and the service then find the sources by name.
package enum PipeWireSources {
    /// Registers "portal" and the "pipewire" cameras (idempotent). `mjpegDecoder` makes the
    /// decoder of each MJPEG camera (MJPEGDecoder: RecordKitMedia links libavcodec, this
    /// module does not); without one, cameras are read only in raw formats.
    package static func register(mjpegDecoder: CameraPictureDecoderFactory? = nil) {
        CameraSourceRegistry.register("pipewire", list: { () throws(CaptureError) -> [CameraInfo] in try PipeWireCamera.list() },
                                      open: { (name: String?, fps: Int) throws(CaptureError) -> any CameraSource in
            try PipeWireCamera.open(name, framesPerSecond: fps, decoder: mjpegDecoder)
        })
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
