import CX11
import Glibc

/// Grabs output-sized rectangles of the root window into the slots of a ``FramePool``.
///
/// With MIT-SHM the pool lives in one shared-memory segment attached to the X server, and every
/// slot has its own `XImage` over it: `XShmGetImage` writes straight into the slot that will be
/// delivered, so a frame costs no copy on the client side. Without MIT-SHM (a remote display, an
/// X server in another IPC namespace, or the extension disabled) each grab is an `XGetImage`
/// whose rows are copied into the slot; Xlib allocates that transfer image per grab
/// (`XGetSubImage` would do the same and then copy pixel by pixel).
///
/// Confined to one thread at a time, like its ``XDisplayConnection``.
final class FrameGrabber {
    /// The connection grabbed from.
    let connection: XDisplayConnection
    /// The slots grabbed into; shared with the buffers handed to consumers.
    let pool: FramePool
    /// Output width in pixels.
    let width: Int
    /// Output height in pixels.
    let height: Int
    /// Bytes per row of every slot.
    let bytesPerRow: Int
    /// Whether grabs go through MIT-SHM.
    var usesSharedMemory: Bool { segmentInfo != nil }

    /// Per-slot images over the shared segment (MIT-SHM only).
    private var images: [UnsafeMutablePointer<XImage>]
    /// The segment description Xlib keeps a pointer to: it needs a stable address.
    private(set) var segmentInfo: UnsafeMutablePointer<XShmSegmentInfo>?
    private var isClosed = false

    private init(connection: XDisplayConnection, pool: FramePool, width: Int, height: Int, bytesPerRow: Int,
                 images: [UnsafeMutablePointer<XImage>], segmentInfo: UnsafeMutablePointer<XShmSegmentInfo>?) {
        self.connection = connection
        self.pool = pool
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.images = images
        self.segmentInfo = segmentInfo
    }

    /// Sets up grabbing `width` × `height` into a pool of `slotCount` slots: MIT-SHM when the
    /// server offers it and accepts our segment, plain `XGetImage` otherwise.
    /// - Throws: `.xError` when the screen's pixel layout is not 32-bit BGRX.
    static func make(connection: XDisplayConnection, width: Int, height: Int,
                     slotCount: Int) throws(CaptureError) -> FrameGrabber {
        if let grabber = try makeSharedMemory(connection: connection, width: width, height: height,
                                              slotCount: slotCount) {
            return grabber
        }
        try checkLayout(of: probeImage(connection: connection), connection: connection)
        let bytesPerRow = width * 4
        guard let pool = FramePool(slotCount: slotCount, slotByteCount: bytesPerRow * height, shared: false) else {
            throw CaptureError(.xError, "could not allocate \(slotCount) frame buffers of \(width)x\(height)")
        }
        return FrameGrabber(connection: connection, pool: pool, width: width, height: height,
                            bytesPerRow: bytesPerRow, images: [], segmentInfo: nil)
    }

    /// The MIT-SHM grabber, or nil to fall back (extension missing, segment refused, attach failed).
    private static func makeSharedMemory(connection: XDisplayConnection, width: Int, height: Int,
                                         slotCount: Int) throws(CaptureError) -> FrameGrabber? {
        let display = connection.display
        guard XShmQueryExtension(display) != 0 else { return nil }
        let info = UnsafeMutablePointer<XShmSegmentInfo>.allocate(capacity: 1)
        info.initialize(to: XShmSegmentInfo())
        var images: [UnsafeMutablePointer<XImage>] = []
        var attached = false
        func undo() {
            for image in images { destroy(image) }
            if attached { XShmDetach(display, info) }
            info.deallocate()
        }
        let visual = XDefaultVisual(display, connection.screen)
        let depth = UInt32(XDefaultDepth(display, connection.screen))
        func makeImage() -> UnsafeMutablePointer<XImage>? {
            XShmCreateImage(display, visual, depth, ZPixmap, nil, info, UInt32(width), UInt32(height))
        }
        guard let first = makeImage() else { undo(); return nil }
        images.append(first)
        do {
            try checkLayout(of: first.pointee, connection: connection)
        } catch {
            undo()
            throw error
        }
        let bytesPerRow = Int(first.pointee.bytes_per_line)
        guard let pool = FramePool(slotCount: slotCount, slotByteCount: bytesPerRow * height, shared: true),
              let id = pool.memory.sharedMemoryID else { undo(); return nil }
        info.pointee.shmid = id
        info.pointee.shmaddr = pool.memory.base.assumingMemoryBound(to: CChar.self)
        info.pointee.readOnly = 0
        let (status, error) = connection.checked { XShmAttach(display, info) }
        // Attached or not, the segment must vanish with its last user, even after kill -9.
        pool.memory.markForRemoval()
        guard status != 0, error == nil else { undo(); return nil }
        attached = true
        for slot in 0..<slotCount {
            if slot > 0 {
                guard let image = makeImage() else { undo(); return nil }
                images.append(image)
            }
            images[slot].pointee.data = pool.address(ofSlot: slot).assumingMemoryBound(to: CChar.self)
        }
        return FrameGrabber(connection: connection, pool: pool, width: width, height: height,
                            bytesPerRow: bytesPerRow, images: images, segmentInfo: info)
    }

    /// A 2×2 image of the root window, to learn the pixel layout `XGetImage` delivers.
    private static func probeImage(connection: XDisplayConnection) throws(CaptureError) -> XImage {
        guard let image = XGetImage(connection.display, connection.root, 0, 0, 2, 2, shim_AllPlanes(), ZPixmap) else {
            throw CaptureError(.xError, "could not read pixels of the root window of display \(connection.name)")
        }
        defer { _ = shim_XDestroyImage(image) }
        return image.pointee
    }

    /// Accepts only 32 bits per pixel, little-endian, red 0xff0000 green 0xff00 blue 0xff: BGR0.
    private static func checkLayout(of image: XImage, connection: XDisplayConnection) throws(CaptureError) {
        guard image.bits_per_pixel == 32, image.byte_order == LSBFirst,
              image.red_mask == 0xff0000, image.green_mask == 0xff00, image.blue_mask == 0xff else {
            throw CaptureError(.xError,
                "display \(connection.name) uses depth \(image.depth), \(image.bits_per_pixel) bits per pixel, "
                + "byte order \(image.byte_order == LSBFirst ? "LSB" : "MSB") first, masks "
                + "0x\(String(image.red_mask, radix: 16))/0x\(String(image.green_mask, radix: 16))/0x\(String(image.blue_mask, radix: 16)); "
                + "only 24/32-bit TrueColor BGRX screens can be captured (run the X server at depth 24)")
        }
    }

    /// Fills slot `slot` with the output-sized rectangle of the root window whose top-left
    /// corner is (`x`, `y`). Returns false when the server refused (e.g. the rectangle is no
    /// longer inside a root window that shrank) or the connection is gone.
    func grab(slot: Int, x: Int, y: Int) -> Bool {
        let display = connection.display
        XErrorTrap.reset(display)
        if usesSharedMemory {
            let ok = XShmGetImage(display, connection.root, images[slot], Int32(x), Int32(y), shim_AllPlanes())
            return ok != 0 && XErrorTrap.take(display) == nil
        }
        guard let image = XGetImage(display, connection.root, Int32(x), Int32(y), UInt32(width), UInt32(height),
                                    shim_AllPlanes(), ZPixmap) else {
            _ = XErrorTrap.take(display)
            return false
        }
        defer { _ = shim_XDestroyImage(image) }
        guard image.pointee.bits_per_pixel == 32, let source = image.pointee.data else { return false }
        let sourceStride = Int(image.pointee.bytes_per_line)
        let destination = pool.address(ofSlot: slot)
        let rowBytes = width * 4
        for row in 0..<height {
            memcpy(destination + row * bytesPerRow, source + row * sourceStride, rowBytes)
        }
        return true
    }

    /// Detaches the segment from the X server and frees the images. Call on the thread that
    /// owns the connection, before closing it. The pool memory stays valid for consumers.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        let connectionUsable = !connection.isConnectionLost
        for image in images { FrameGrabber.destroy(image) }
        images = []
        if let segmentInfo {
            if connectionUsable { XShmDetach(connection.display, segmentInfo) }
            segmentInfo.deallocate()
        }
        segmentInfo = nil
    }

    /// Frees an image struct without touching the pixel memory it points into.
    private static func destroy(_ image: UnsafeMutablePointer<XImage>) {
        image.pointee.data = nil
        _ = shim_XDestroyImage(image)
    }

    deinit { close() }
}
