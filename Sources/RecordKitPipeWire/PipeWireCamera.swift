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
/// ``open(_:framesPerSecond:decoder:)`` reads what the camera offers (its port's EnumFormat)
/// and asks for the best of it (``CameraFormatOffer/best(of:framesPerSecond:decodesMJPEG:)``:
/// the recording's rate, then the largest size up to 1920x1080, then raw before MJPEG); when
/// the offers cannot be read, it lets PipeWire pick from raw first, then MJPEG. `init` connects
/// and waits for the negotiated format: raw BGRx/BGRA/RGBx/RGBA as they come; YUY2, NV12 and
/// I420 (what USB cameras send uncompressed) converted once to BGRx on the stream's thread;
/// MJPEG (what USB cameras send at 720p and 1080p) decoded on the stream's thread by the
/// decoder the executables hand in (MJPEGDecoder, libavcodec), a picture that does not decode
/// skipped and counted (``skipped``). In memfd/SHM buffers. Pictures go to the sink on
/// PipeWire's thread loop for this stream, valid only during the call.
final class PipeWireCamera: CameraSource, @unchecked Sendable {
    let width: Int
    let height: Int
    let name: String
    let format: String
    private let stream: Mutex<OpaquePointer?>
    /// PipeWire's callbacks hold `box` unretained-but-retained (`ref`) until the stream is closed.
    private let box: CameraBox
    private let ref: Unmanaged<CameraBox>

    /// Opens node `node` (named `name`) at up to `framesPerSecond`, through the remote `fd` (the
    /// Camera portal's, taken over; -1: the user's daemon), asking for `offer` (nil: what
    /// PipeWire picks, raw first). MJPEG is read only with a `decoder`.
    /// - Throws: `.cameraUnavailable` when PipeWire or the node cannot be reached, or no format
    ///   RecordKit reads is agreed within 5 s.
    init(node: UInt32, name: String, framesPerSecond: Int, remote fd: Int32 = -1, offer: CameraFormatOffer? = nil,
         decoder: CameraPictureDecoderFactory? = nil) throws(CaptureError) {
        let decode = decoder?()
        if offer?.encoding == .mjpeg && decode == nil {
            if fd >= 0 { close(fd) }
            throw CaptureError(.cameraUnavailable, "camera '\(name)' sends MJPEG and no MJPEG decoder could be made (libavcodec's mjpeg)")
        }
        let box = CameraBox(decode: decode)
        let ref = Unmanaged.passRetained(box)
        var err = [CChar](repeating: 0, count: 512)
        let options = UInt32(decode != nil ? RK_PW_CAMERA_ACCEPT_MJPEG : 0)
        let rate = UInt32(min(max(framesPerSecond, 1), 240))
        func open(_ wanted: UnsafePointer<rk_pw_camera_format>?) -> OpaquePointer? {
            rk_pw_camera_open_fd(fd, node, rate, wanted, options, { userdata, frame in
                guard let userdata, let frame else { return }
                Unmanaged<CameraBox>.fromOpaque(userdata).takeUnretainedValue().frame(frame)
            }, { userdata, kind, message in
                guard let userdata else { return }
                Unmanaged<CameraBox>.fromOpaque(userdata).takeUnretainedValue().event(kind, message.map { String(cString: $0) } ?? "stream event")
            }, ref.toOpaque(), &err, err.count)
        }
        let opened = offer.map { o in
            withUnsafePointer(to: rk_pw_camera_format(format: Self.rkFormat(o.encoding), width: UInt32(o.width), height: UInt32(o.height),
                                                      max_fps: UInt32(max(o.maxFramesPerSecond, 0)))) { open($0) }
        } ?? open(nil)
        guard let stream = opened else {
            ref.release()
            throw CaptureError(.cameraUnavailable, "camera '\(name)': PipeWire: " + String(cBuffer: err))
        }
        var w: UInt32 = 0, h: UInt32 = 0, format: UInt32 = 0
        let waited = rk_pw_capture_wait_format(stream, 5_000, &w, &h, &format)
        guard waited == 0, w >= 2, h >= 2 else {
            rk_pw_capture_close(stream)
            ref.release()
            let asked = offer.map { "asked for \($0)" } ?? "offered BGRx/BGRA/RGBx/RGBA, YUY2, NV12, I420" + (decode != nil ? " and MJPEG" : "")
            throw CaptureError(.cameraUnavailable, "camera '\(name)' agreed on no video format RecordKit reads within 5 s (\(asked); "
                + "\(box.endReason ?? "no reason given")); `recordctl cameras` lists the cameras, pick one that sends one of these")
        }
        let source = rk_pw_capture_source_format(stream)
        box.width = Int(w)
        box.height = Int(h)
        self.width = Int(w)
        self.height = Int(h)
        self.name = name
        self.format = "\(Self.encoding(source)?.name ?? "format \(source)") \(w)x\(h)"
        self.stream = Mutex(stream)
        self.box = box
        self.ref = ref
    }

    /// The C side's RK_PW_* for `encoding`.
    static func rkFormat(_ encoding: CameraFormatOffer.Encoding) -> UInt32 {
        switch encoding {
        case .bgrx: UInt32(RK_PW_BGRX)
        case .bgra: UInt32(RK_PW_BGRA)
        case .rgbx: UInt32(RK_PW_RGBX)
        case .rgba: UInt32(RK_PW_RGBA)
        case .yuy2: UInt32(RK_PW_YUY2)
        case .nv12: UInt32(RK_PW_NV12)
        case .i420: UInt32(RK_PW_I420)
        case .mjpeg: UInt32(RK_PW_MJPEG)
        }
    }

    /// The encoding of the C side's RK_PW_* `format`, nil for one it does not name.
    static func encoding(_ format: UInt32) -> CameraFormatOffer.Encoding? {
        CameraFormatOffer.Encoding.allCases.first { rkFormat($0) == format }
    }

    var endReason: String? { box.endReason }

    var skipped: (count: Int64, lastReason: String?) { box.skipped }

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
        var cameras = try list(remote: try portal?.remote() ?? -1)
        // What each offers: one more connection each (through the portal, one remote each).
        for i in cameras.indices {
            guard let node = cameras[i].nodeID, let fd = portal == nil ? -1 : try? portal?.remote() else { continue }
            cameras[i].formats = offers(node: node, remote: fd)?.map(\.description)
        }
        return cameras
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
    static func open(_ name: String?, framesPerSecond: Int, decoder: CameraPictureDecoderFactory?) throws(CaptureError) -> any CameraSource {
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
        let offer = offers(node: node, remote: try portal?.remote() ?? -1).flatMap {
            CameraFormatOffer.best(of: $0, framesPerSecond: framesPerSecond, decodesMJPEG: decoder != nil)
        }
        do throws(CaptureError) {
            return try PipeWireCamera(node: node, name: chosen.name, framesPerSecond: framesPerSecond, remote: try portal?.remote() ?? -1,
                                      offer: offer, decoder: decoder)
        } catch where offer != nil && error.kind == .cameraUnavailable {
            // The offer it listed was not agreed (the camera changed its mind, a driver's quirk):
            // let PipeWire pick among everything we read, as when the offers cannot be read.
            return try PipeWireCamera(node: node, name: chosen.name, framesPerSecond: framesPerSecond, remote: try portal?.remote() ?? -1,
                                      offer: nil, decoder: decoder)
        }
    }

    /// What node `node` offers, through the remote `fd` (taken over; -1: the user's daemon); nil
    /// when its port's formats cannot be read (PipeWire then picks among what we offer).
    static func offers(node: UInt32, remote fd: Int32) -> [CameraFormatOffer]? {
        var formats = [rk_pw_camera_format](repeating: rk_pw_camera_format(), count: 256)
        var count: Int32 = 0
        var err = [CChar](repeating: 0, count: 256)
        guard rk_pw_camera_formats(fd, node, &formats, Int32(formats.count), &count, 1_000, &err, err.count) == 0, count > 0 else { return nil }
        return formats.prefix(Int(count)).compactMap { f in
            encoding(f.format).map { CameraFormatOffer($0, width: Int(f.width), height: Int(f.height), maxFramesPerSecond: Int(f.max_fps)) }
        }
    }
}

/// What PipeWire's callbacks reach: the sink once started, the MJPEG decoder, why the stream
/// ended and what was skipped. `decode`, `width` and `height` belong to the stream's thread
/// (set before the first picture).
private final class CameraBox: @unchecked Sendable {
    let sink = Mutex<CameraPictureSink?>(nil)
    private let ended = Mutex<String?>(nil)
    private let skips = Mutex<(count: Int64, lastReason: String?)>((0, nil))
    private let decode: CameraPictureDecode?
    /// The negotiated size: a decoded picture of another size is skipped.
    var width = 0
    var height = 0

    init(decode: CameraPictureDecode?) { self.decode = decode }

    var skipped: (count: Int64, lastReason: String?) { skips.withLock { $0 } }

    private func skip(_ reason: String) {
        skips.withLock { $0 = ($0.count + 1, reason) }
    }

    var endReason: String? { ended.withLock { $0 } }

    func event(_ kind: Int32, _ message: String) {
        guard kind == Int32(RK_PW_EVENT_ERROR) || kind == Int32(RK_PW_EVENT_GONE) else { return }
        ended.withLock { if $0 == nil { $0 = message } }
    }

    func frame(_ frame: UnsafePointer<rk_pw_frame>) {
        let f = frame.pointee
        guard let data = f.data, let sink = sink.withLock({ $0 }) else { return }
        if f.format == UInt32(RK_PW_MJPEG) {
            // Decoded here, on the stream's own thread; a picture that does not decode is skipped.
            guard let decode else { return }
            let (w, h) = (width, height)
            var delivered = false
            let failure = decode(UnsafeRawBufferPointer(start: data, count: Int(f.size))) { pixels, bytesPerRow, pw, ph in
                guard pw == w, ph == h else { return }
                delivered = true
                sink(pixels, bytesPerRow, pw, ph, false, UInt64(max(f.capture_ns, 0)))
            }
            if let failure { skip(failure) } else if !delivered { skip("a JPEG picture not of the negotiated \(w)x\(h)") }
            return
        }
        let redFirst = f.format == UInt32(RK_PW_RGBX) || f.format == UInt32(RK_PW_RGBA)
        sink(UnsafeRawPointer(data), Int(f.stride), Int(f.width), Int(f.height), redFirst, UInt64(max(f.capture_ns, 0)))
    }
}
