import CPipeWire
import Glibc
import RecordKit
import RecordKitCapture
import Synchronization

/// The Wayland screen through the xdg-desktop-portal ScreenCast interface and PipeWire: the
/// "portal" video source (``VideoSource``).
///
/// **Set-up.** `init` does all the fallible work: it connects to the session bus, checks what the
/// portal offers (`AvailableSourceTypes`, `AvailableCursorModes`: a type it does not list is never
/// asked for), runs CreateSession/SelectSources/Start with `persist_mode=2` and the restore token
/// saved by the last recording (``RestoreTokenStore``: the second recording starts without a
/// dialog), opens the PipeWire remote and connects a stream that negotiates raw BGRx/BGRA/RGBx/RGBA
/// in memfd/SHM buffers at up to `framesPerSecond`. The size is the stream's (or the region's).
///
/// **Threading.** PipeWire's thread loop copies each buffer into a pooled BGR0 buffer
/// (``PipeWireFrameReceiver``); a pacing thread of this source (never the cooperative pool)
/// delivers the newest picture on the capture clock's ticks, so the timeline sees what it sees
/// from X11: one frame per changed tick, each with the compositor's `CLOCK_MONOTONIC` time,
/// repeats only as ``FrameRateMode`` asks (variable: a still screen costs one repeat every half
/// second). The pacing thread also watches the portal session: when it closes or the stream's
/// node goes away, ``onFailure`` is called once with the reason and capture ends. The D-Bus
/// connection stays open for the whole recording (the session lives as long as it does).
///
/// **Region.** A region is a crop of the monitor's picture. Windows and RandR monitors are X11
/// selections: the portal chooses the monitor itself (its dialog, or its configuration).
package final class PortalScreenCapture: VideoSource, @unchecked Sendable {
    package let width: Int
    package let height: Int
    package let windowID: UInt? = nil
    /// Yes: each picture is copied whole into a pool buffer of its own (``PipeWireFrameReceiver``).
    package var lendsWritableFrames: Bool { true }

    private let framesPerSecond: Int
    private let frameRateMode: FrameRateMode
    private let portal: PortalSession
    private let receiver: PipeWireFrameReceiver
    private let stream: Mutex<OpaquePointer?>
    private let counters = CaptureCounters()
    private let stopSignal = StopFlag()
    private let thread = Mutex<CaptureThread?>(nil)
    private let started = Atomic<Bool>(false)
    private let failure = Mutex<(@Sendable (CaptureError) -> Void)?>(nil)
    private let windowGone = Mutex<(@Sendable () -> Void)?>(nil)

    /// Starts the portal's screen cast and the PipeWire stream for `configuration`.
    /// - Throws: ``CaptureError`` `.portalUnavailable` (no bus, no portal, refused, cancelled, no
    ///   frame format within 10 s), `.badRegion` (a region outside the monitor, a window or
    ///   monitor selection the portal cannot make).
    package convenience init(configuration: ScreenCaptureConfiguration) throws(CaptureError) {
        var portal = try PortalSession()
        let (types, cursorMode) = try Self.selection(portal: portal, configuration: configuration)
        let store = RestoreTokenStore.user()
        let saved = store?.load()
        var result: ([PortalSession.Stream], String?)
        do throws(CaptureError) {
            result = try portal.start(types: types, cursorMode: cursorMode, persist: true, restoreToken: saved)
        } catch {
            guard saved != nil else { throw error }
            // A token the portal no longer honours: ask again, in a new session.
            portal.close()
            portal = try PortalSession()
            result = try portal.start(types: types, cursorMode: cursorMode, persist: true, restoreToken: nil)
        }
        try self.init(portal: portal, configuration: configuration, started: result, store: store, saved: saved)
    }

    /// The source types and cursor mode to ask for: only what the portal lists.
    private static func selection(portal: PortalSession, configuration: ScreenCaptureConfiguration) throws(CaptureError) -> (UInt32, UInt32) {
        var types: UInt32 = 1  // monitor
        switch configuration.target {
        case .screen, .region: break
        case .window:
            guard portal.availableSourceTypes & 2 != 0 else {
                throw CaptureError(.badRegion, "this ScreenCast portal offers no window capture (AvailableSourceTypes=\(portal.availableSourceTypes)): "
                    + "record the screen, or a --region of it")
            }
            types = 2
        case .monitor:
            throw CaptureError(.badRegion, "--monitor selects an X11 RandR monitor; on Wayland the portal chooses the monitor (its dialog or configuration)")
        }
        guard portal.availableSourceTypes & types != 0 else {
            throw CaptureError(.portalUnavailable, "this ScreenCast portal offers no monitor capture (AvailableSourceTypes=\(portal.availableSourceTypes))")
        }
        // Cursor: embedded when shown and offered, hidden otherwise (metadata is never asked for).
        let cursors = portal.availableCursorModes
        let cursorMode: UInt32 = configuration.showsCursor && cursors & 2 != 0 ? 2 : (cursors & 1 != 0 ? 1 : 2)
        return (types, cursorMode)
    }

    private init(portal: PortalSession, configuration: ScreenCaptureConfiguration, started result: ([PortalSession.Stream], String?),
                 store: RestoreTokenStore?, saved: String?) throws(CaptureError) {
        let (streams, token) = result
        if let token, token != saved { store?.save(token) }
        guard let cast = streams.first else { throw CaptureError(.portalUnavailable, "the ScreenCast portal started no stream") }
        let fd = try portal.openPipeWireRemote()
        let fps = min(max(configuration.framesPerSecond, 1), 240)

        // The stream's size is known only once the format is negotiated; the crop needs it.
        let pending = PendingReceiver()
        let ref = Unmanaged.passRetained(pending)
        var err = [CChar](repeating: 0, count: 512)
        guard let stream = rk_pw_capture_open(fd, cast.nodeID, UInt32(fps), { userdata, frame in
            guard let userdata, let frame else { return }
            Unmanaged<PendingReceiver>.fromOpaque(userdata).takeUnretainedValue().receiver.withLock { $0 }?.receive(frame)
        }, { userdata, kind, message in
            guard let userdata else { return }
            let text = message.map { String(cString: $0) } ?? "stream event"
            let box = Unmanaged<PendingReceiver>.fromOpaque(userdata).takeUnretainedValue()
            if let receiver = box.receiver.withLock({ $0 }) { receiver.event(kind, text) } else { box.early(kind, text) }
        }, ref.toOpaque(), &err, err.count) else {
            ref.release()
            throw CaptureError(.portalUnavailable, "PipeWire: " + String(cBuffer: err))
        }
        var w: UInt32 = 0, h: UInt32 = 0, format: UInt32 = 0
        let waited = rk_pw_capture_wait_format(stream, 10_000, &w, &h, &format)
        guard waited == 0, w >= 2, h >= 2 else {
            rk_pw_capture_close(stream)
            ref.release()
            throw CaptureError(.portalUnavailable, waited == -ETIMEDOUT
                ? "the screen cast's PipeWire stream offered no raw video format within 10 s (is WirePlumber running?)"
                : "the screen cast's PipeWire stream failed before its first frame: \(pending.earlyReason ?? "no reason given")")
        }
        let crop: PixelRect
        switch configuration.target {
        case .region(let r):
            guard r.x >= 0, r.y >= 0, r.width >= 2, r.height >= 2, r.x + r.width <= Int(w), r.y + r.height <= Int(h) else {
                rk_pw_capture_close(stream)
                ref.release()
                throw CaptureError(.badRegion, "region \(r.width)x\(r.height)+\(r.x)+\(r.y) does not lie inside the screen cast's \(w)x\(h) monitor")
            }
            crop = PixelRect(x: r.x, y: r.y, width: r.width & ~1, height: r.height & ~1)
        default:
            crop = PixelRect(x: 0, y: 0, width: Int(w) & ~1, height: Int(h) & ~1)
        }
        guard let pool = FramePool(slotCount: 12, slotByteCount: crop.width * crop.height * 4, shared: false) else {
            rk_pw_capture_close(stream)
            ref.release()
            throw CaptureError(.portalError, "no memory for the frame pool")
        }
        let counters = self.counters
        counters.update { $0.damageTracking = true }
        let receiver = PipeWireFrameReceiver(crop: crop, pool: pool, counters: counters)
        pending.receiver.withLock { $0 = receiver }
        if let reason = pending.earlyReason { receiver.event(Int32(RK_PW_EVENT_GONE), reason) }
        self.portal = portal
        self.receiver = receiver
        self.pendingRef = ref
        self.stream = Mutex(stream)
        self.width = crop.width
        self.height = crop.height
        self.framesPerSecond = fps
        self.frameRateMode = configuration.frameRateMode
    }

    private let pendingRef: Unmanaged<PendingReceiver>

    package var statistics: ScreenCaptureStatistics { counters.snapshot }

    package var onWindowGone: (@Sendable () -> Void)? {
        get { windowGone.withLock { $0 } }
        set { windowGone.withLock { $0 = newValue } }
    }

    package var onFailure: (@Sendable (CaptureError) -> Void)? {
        get { failure.withLock { $0 } }
        set { failure.withLock { $0 = newValue } }
    }

    package func start(deliver: @escaping @Sendable (CapturedFrame) -> Void) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing), !stopSignal.isSet else { return }
        let pacer = PortalFramePacer(receiver: receiver, portal: portal, counters: counters, width: width, height: height,
                                     framesPerSecond: framesPerSecond, mode: frameRateMode, stop: { [stopSignal] in stopSignal.isSet })
        let onFailure = self.onFailure
        switch CaptureThread.start(name: "rk-portal", { pacer.run(deliver: deliver, onEnd: onFailure) }) {
        case .success(let t): thread.withLock { $0 = t }
        case .failure(let error): onFailure?(CaptureError(.portalError, "could not start the screen cast thread: \(error)"))
        }
    }

    package func stop() {
        guard stopSignal.raise() else { return }
        let t = thread.withLock { t in defer { t = nil }; return t }
        t?.joinOrDetach()
        let s = stream.withLock { s in defer { s = nil }; return s }
        rk_pw_capture_close(s)  // no PipeWire callback after this
        // The pacing thread closes the portal session as it ends; without one, it is closed here.
        if t == nil { portal.close() }
        pendingRef.release()
    }

    deinit { stop() }
}

/// A one-way flag: set once by `stop()`, read by the pacing thread.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    /// Sets the flag; true for the call that set it.
    func raise() -> Bool { !flag.exchange(true, ordering: .acquiringAndReleasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}

/// What PipeWire's callbacks reach before the receiver exists (the format decides the crop).
private final class PendingReceiver: @unchecked Sendable {
    let receiver = Mutex<PipeWireFrameReceiver?>(nil)
    private let reason = Mutex<String?>(nil)
    func early(_ kind: Int32, _ message: String) {
        guard kind == Int32(RK_PW_EVENT_ERROR) || kind == Int32(RK_PW_EVENT_GONE) else { return }
        reason.withLock { if $0 == nil { $0 = message } }
    }
    var earlyReason: String? { reason.withLock { $0 } }
}
