import CPipeWire
import Glibc
import RecordKitCapture
import Synchronization

/// A camera as a PipeWire `Video/Source` node (a V4L2 or libcamera device WirePlumber exposes, a
/// program's virtual camera, the test rig's GStreamer camera): the ``CameraSource`` of
/// ``CameraSourceRegistry``. Through the Camera portal when one answers (``CameraPortal``: its
/// PipeWire connections see the cameras the user allowed), else from the user's PipeWire
/// daemon directly (`PIPEWIRE_REMOTE`, else the user's socket).
///
/// `init` connects and waits for the negotiated format (raw BGRx/BGRA/RGBx/RGBA, or YUY2, what
/// most USB cameras send uncompressed, converted once to BGRx on the stream's thread; in
/// memfd/SHM buffers; a camera that offers only other formats (NV12, MJPEG) is refused with a
/// clear error). Pictures go to the sink on PipeWire's thread loop for this stream, valid only
/// during the call.
final class PipeWireCamera: CameraSource, @unchecked Sendable {
    let width: Int
    let height: Int
    let name: String
    private let stream: Mutex<OpaquePointer?>
    /// PipeWire's callbacks hold `box` unretained-but-retained (`ref`) until the stream is closed.
    private let box: CameraBox
    private let ref: Unmanaged<CameraBox>

    /// Opens node `node` (named `name`) at up to `framesPerSecond`, through the remote `fd` (the
    /// Camera portal's, taken over; -1: the user's daemon).
    /// - Throws: `.cameraUnavailable` when PipeWire or the node cannot be reached, or no raw RGB
    ///   format or YUY2 is agreed within 5 s.
    init(node: UInt32, name: String, framesPerSecond: Int, remote fd: Int32 = -1) throws(CaptureError) {
        let box = CameraBox()
        let ref = Unmanaged.passRetained(box)
        var err = [CChar](repeating: 0, count: 512)
        guard let stream = rk_pw_camera_open_fd(fd, node, UInt32(min(max(framesPerSecond, 1), 240)), { userdata, frame in
            guard let userdata, let frame else { return }
            Unmanaged<CameraBox>.fromOpaque(userdata).takeUnretainedValue().frame(frame)
        }, { userdata, kind, message in
            guard let userdata else { return }
            Unmanaged<CameraBox>.fromOpaque(userdata).takeUnretainedValue().event(kind, message.map { String(cString: $0) } ?? "stream event")
        }, ref.toOpaque(), &err, err.count) else {
            ref.release()
            throw CaptureError(.cameraUnavailable, "camera '\(name)': PipeWire: " + String(cBuffer: err))
        }
        var w: UInt32 = 0, h: UInt32 = 0, format: UInt32 = 0
        let waited = rk_pw_capture_wait_format(stream, 5_000, &w, &h, &format)
        guard waited == 0, w >= 2, h >= 2 else {
            rk_pw_capture_close(stream)
            ref.release()
            throw CaptureError(.cameraUnavailable, "camera '\(name)' agreed on no video format RecordKit reads within 5 s "
                + "(BGRx/BGRA/RGBx/RGBA or YUY2; MJPEG and NV12 cameras are not read yet; \(box.endReason ?? "no reason given"))")
        }
        self.width = Int(w)
        self.height = Int(h)
        self.name = name
        self.stream = Mutex(stream)
        self.box = box
        self.ref = ref
    }

    var endReason: String? { box.endReason }

    func start(deliver: @escaping CameraPictureSink) { box.sink.withLock { $0 = deliver } }

    func stop() {
        let s = stream.withLock { s in defer { s = nil }; return s }
        guard let s else { return }
        rk_pw_capture_close(s)  // no callback after this
        ref.release()
    }

    deinit { stop() }

    /// Every camera node of PipeWire's registry (``CameraInfo``, api "pipewire"), through the
    /// Camera portal when one answers (their detail then says so).
    /// - Throws: `.cameraUnavailable` when PipeWire cannot be reached, or the portal refused.
    static func list() throws(CaptureError) -> [CameraInfo] {
        let portal = try CameraPortal.open()
        defer { portal?.close() }
        return try list(remote: try portal?.remote() ?? -1)
    }

    /// The camera nodes seen through the remote `fd` (taken over; -1: the user's daemon).
    private static func list(remote fd: Int32) throws(CaptureError) -> [CameraInfo] {
        var nodes = [rk_pw_node](repeating: rk_pw_node(), count: 64)
        var count: Int32 = 0
        var err = [CChar](repeating: 0, count: 512)
        let r = rk_pw_list_video_sources_fd(fd, &nodes, Int32(nodes.count), &count, 3_000, &err, err.count)
        guard r == 0 else { throw CaptureError(.cameraUnavailable, String(cBuffer: err)) }
        let via = fd >= 0 ? ["Camera portal"] : []
        return nodes.prefix(Int(count)).map { n in
            var node = n
            let name = withUnsafeBytes(of: &node.name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let description = withUnsafeBytes(of: &node.description) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let role = withUnsafeBytes(of: &node.role) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let api = withUnsafeBytes(of: &node.api) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            return CameraInfo(api: "pipewire", name: name, description: description, nodeID: n.id,
                              detail: ([role, api].filter { !$0.isEmpty } + via).joined(separator: ", "), recordable: true)
        }.sorted { $0.nodeID ?? 0 < $1.nodeID ?? 0 }
    }

    /// Opens the camera called `name` (its node name, description or node id; nil: the first
    /// node with the Camera role, else the first node).
    /// - Throws: `.cameraNotFound` (with the names there are), `.cameraUnavailable`.
    static func open(_ name: String?, framesPerSecond: Int) throws(CaptureError) -> any CameraSource {
        let portal = try CameraPortal.open()
        defer { portal?.close() }
        let cameras = try list(remote: try portal?.remote() ?? -1)
        let chosen: CameraInfo?
        if let name {
            chosen = cameras.first { $0.name == name || $0.description == name || $0.nodeID.map { String($0) } == name }
        } else {
            chosen = cameras.first { $0.detail.hasPrefix("Camera") } ?? cameras.first
        }
        guard let chosen, let node = chosen.nodeID else {
            let known = cameras.map(\.name)
            throw CaptureError(.cameraNotFound, (name.map { "no camera called '\($0)'" } ?? "no camera")
                + (known.isEmpty ? ": PipeWire has no Video/Source node (`recordctl cameras` lists what there is)"
                                 : ": use one of \(known.joined(separator: ", ")) (`recordctl cameras`)"))
        }
        return try PipeWireCamera(node: node, name: chosen.name, framesPerSecond: framesPerSecond, remote: try portal?.remote() ?? -1)
    }
}

/// What PipeWire's callbacks reach: the sink once started, and why the stream ended.
private final class CameraBox: @unchecked Sendable {
    let sink = Mutex<CameraPictureSink?>(nil)
    private let ended = Mutex<String?>(nil)

    var endReason: String? { ended.withLock { $0 } }

    func event(_ kind: Int32, _ message: String) {
        guard kind == Int32(RK_PW_EVENT_ERROR) || kind == Int32(RK_PW_EVENT_GONE) else { return }
        ended.withLock { if $0 == nil { $0 = message } }
    }

    func frame(_ frame: UnsafePointer<rk_pw_frame>) {
        let f = frame.pointee
        guard let data = f.data, let sink = sink.withLock({ $0 }) else { return }
        let redFirst = f.format == UInt32(RK_PW_RGBX) || f.format == UInt32(RK_PW_RGBA)
        sink(UnsafeRawPointer(data), Int(f.stride), Int(f.width), Int(f.height), redFirst, UInt64(max(f.capture_ns, 0)))
    }
}
