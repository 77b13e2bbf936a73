import CPipeWire
import Glibc
import RecordKitCapture

/// One D-Bus connection to the ScreenCast portal and the session it started: the cast lives
/// exactly as long as this object (the portal closes a session whose connection goes away).
///
/// Not thread-safe: one thread at a time. The source sets it up on the caller's thread and then
/// hands it to its pacing thread (thread creation orders the two).
final class PortalSession: @unchecked Sendable {
    private var portal: OpaquePointer?
    /// ScreenCast source types the portal offers (1 monitor, 2 window, 4 virtual).
    let availableSourceTypes: UInt32
    /// Cursor modes the portal offers (1 hidden, 2 embedded, 4 metadata).
    let availableCursorModes: UInt32

    /// A stream the portal started.
    struct Stream {
        let nodeID: UInt32
        let x: Int?, y: Int?, width: Int, height: Int
    }

    /// Connects to the session bus and reads the portal's properties.
    /// - Throws: `.portalUnavailable` without a session bus or a ScreenCast portal.
    init() throws(CaptureError) {
        var err = [CChar](repeating: 0, count: 512)
        guard let portal = rk_portal_open(&err, err.count) else {
            throw CaptureError(.portalUnavailable, String(cBuffer: err) + "; recording a Wayland screen needs xdg-desktop-portal with a ScreenCast backend")
        }
        var types: UInt32 = 0, cursors: UInt32 = 0, version: UInt32 = 0
        guard rk_portal_properties(portal, &types, &cursors, &version, &err, err.count) == 0 else {
            rk_portal_close(portal)
            throw CaptureError(.portalUnavailable, String(cBuffer: err))
        }
        self.portal = portal
        self.availableSourceTypes = types
        self.availableCursorModes = cursors
    }

    /// CreateSession, SelectSources and Start; returns the streams and the new restore token
    /// (nil when the portal gave none). `persist` asks the portal to remember the selection.
    /// - Throws: `.portalUnavailable` when the portal refuses, the user cancels or nobody answers.
    func start(types: UInt32, cursorMode: UInt32, persist: Bool, restoreToken: String?) throws(CaptureError) -> ([Stream], String?) {
        guard let portal else { throw CaptureError(.portalError, "the portal session is closed") }
        var err = [CChar](repeating: 0, count: 512)
        var token = [CChar](repeating: 0, count: 512)
        var streams = [rk_portal_stream](repeating: rk_portal_stream(), count: 8)
        var count: Int32 = 0
        let status = rk_portal_start(portal, types, cursorMode, persist ? 2 : 0, restoreToken, 60_000,
                                     &streams, Int32(streams.count), &count, &token, token.count, &err, err.count)
        guard status == 0 else { throw CaptureError(.portalUnavailable, String(cBuffer: err)) }
        let result = streams.prefix(Int(count)).map {
            Stream(nodeID: $0.node_id, x: $0.x == Int32.min ? nil : Int($0.x), y: $0.y == Int32.min ? nil : Int($0.y),
                   width: Int($0.width), height: Int($0.height))
        }
        let newToken = String(cBuffer: token)
        return (result, newToken.isEmpty ? nil : newToken)
    }

    /// A PipeWire remote for the started session; the caller owns the descriptor.
    func openPipeWireRemote() throws(CaptureError) -> Int32 {
        guard let portal else { throw CaptureError(.portalError, "the portal session is closed") }
        var err = [CChar](repeating: 0, count: 512)
        let fd = rk_portal_open_pipewire_remote(portal, &err, err.count)
        guard fd >= 0 else { throw CaptureError(.portalUnavailable, String(cBuffer: err)) }
        return fd
    }

    /// Handles what arrived on the bus without blocking; true once the portal closed the
    /// session or the bus went away.
    func pollClosed() -> Bool {
        guard let portal else { return true }
        return rk_portal_poll_closed(portal) != 0
    }

    /// Closes the session and the connection. Idempotent.
    func close() {
        rk_portal_close(portal)
        portal = nil
    }

    deinit { close() }
}
