import CPipeWire
import Glibc
import RecordKitCapture

/// The Camera portal (`org.freedesktop.portal.Camera`): how a desktop hands cameras to an
/// application, asking the user once (its Access dialog) and remembering the answer in the
/// permission store. RecordKit reads cameras through it when one answers and from the user's
/// PipeWire daemon directly otherwise (``PipeWireCamera``).
///
/// ``open()`` connects to the session bus and asks AccessCamera; ``remote()`` then hands out
/// PipeWire connections that see the cameras only (one per connection: listing, then the
/// stream). The connections outlive the portal's D-Bus connection, which ``close()`` ends.
/// One thread at a time.
final class CameraPortal {
    private var portal: OpaquePointer?

    private init(_ portal: OpaquePointer) { self.portal = portal }

    /// Asks the Camera portal for access; nil when there is no session bus or no Camera portal
    /// (xdg-desktop-portal offers it only with an Access backend): read PipeWire directly then.
    /// `RECORDKIT_CAMERA_PORTAL=0` skips the portal.
    /// - Throws: `.cameraUnavailable` when the portal answers and refuses (the user declined, or
    ///   the permission store says no) or fails, with what it said.
    static func open() throws(CaptureError) -> CameraPortal? {
        if let value = getenv("RECORDKIT_CAMERA_PORTAL"), String(cString: value) == "0" { return nil }
        guard getenv("DBUS_SESSION_BUS_ADDRESS") != nil || getenv("XDG_RUNTIME_DIR") != nil else { return nil }
        var err = [CChar](repeating: 0, count: 512)
        guard let portal = rk_portal_open(&err, err.count) else { return nil }
        let r = rk_portal_camera_access(portal, 30_000, &err, err.count)
        if r == -ENOENT {
            rk_portal_close(portal)
            return nil
        }
        guard r == 0 else {
            rk_portal_close(portal)
            throw CaptureError(.cameraUnavailable, String(cBuffer: err)
                + (r == -ECANCELED || r == -EPERM ? ": allow RecordKit to use the camera (the desktop's privacy settings, or its permission store: table devices, id camera)" : ""))
        }
        return CameraPortal(portal)
    }

    /// A new PipeWire connection (its file descriptor, owned by the caller) that sees the cameras.
    /// - Throws: `.cameraUnavailable` with the portal's message.
    func remote() throws(CaptureError) -> Int32 {
        guard let portal else { throw CaptureError(.cameraUnavailable, "the Camera portal connection is closed") }
        var err = [CChar](repeating: 0, count: 512)
        let fd = rk_portal_camera_open_remote(portal, &err, err.count)
        guard fd >= 0 else { throw CaptureError(.cameraUnavailable, String(cBuffer: err)) }
        return fd
    }

    /// Ends the D-Bus connection (the PipeWire connections it handed out stay). Idempotent.
    func close() {
        rk_portal_close(portal)
        portal = nil
    }

    deinit { close() }
}
