import RecordKitCapture

/// A RandR monitor, as `recordctl monitors` lists it (``MonitorInfo``).
package typealias DisplayMonitor = MonitorInfo
/// One camera, as `recordctl cameras` lists it (``CameraInfo``).
package typealias CameraDevice = CameraInfo
/// Applications playing, sinks and sources, as `recordctl audio-sources` lists them (``AudioInventory``).
package typealias AudioSourceInventory = AudioInventory

/// What can be recorded besides the whole screen: the display's monitors and the
/// PulseAudio server's applications, sinks and sources. Blocking; any thread.
package enum CaptureSources {
    /// The monitors of the session's video source: the RandR monitors of `display` (nil:
    /// `$DISPLAY`), or in a Wayland session without X what the ScreenCast portal offers
    /// (``VideoSourceRegistry``).
    /// - Throws: ``RecorderError`` `.unavailable` without the display or portal, `.failed` without RandR 1.5.
    package static func monitors(display: String?) throws(RecorderError) -> [DisplayMonitor] {
        do throws(CaptureError) { return try VideoSourceRegistry.monitors(source: nil, display: display) } catch {
            throw error.recorderError
        }
    }

    /// Every camera: PipeWire's camera nodes and the V4L2 devices (``CameraSourceRegistry``),
    /// and for each API that could not be asked (no PipeWire daemon) why.
    package static func cameras() -> (cameras: [CameraDevice], problems: [String]) { CameraSourceRegistry.list() }

    /// The applications playing now, the sinks and the sources of `server` (nil: libpulse's default).
    /// - Throws: ``RecorderError`` `.unavailable` without a server, `.failed` otherwise.
    package static func audioSources(server: String?) throws(RecorderError) -> AudioSourceInventory {
        do throws(CaptureError) {
            let connection = try PulseAudioConnection(server: server, clientName: "recordctl")
            defer { connection.close() }
            return try connection.inventory()
        } catch {
            throw RecorderError(error.kind == .noAudioServer ? .unavailable : .failed, error.message)
        }
    }
}
