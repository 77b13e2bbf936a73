import CX11
import Glibc
import RecordKit

extension FrameGrabber {
    /// Grabs only `rects` (frame coordinates) of the output-sized rectangle whose top-left corner
    /// is root (`originX`, `originY`) into slot `slot`, leaving its other pixels as they are.
    ///
    /// With MIT-SHM each rectangle is one `XShmGetImage` of just that size into `scratch` (a pool
    /// slot nobody else uses: the server writes rows packed at the rectangle's width), whose rows
    /// are then copied into place; without it, one `XGetImage` of that size. Returns false when
    /// the server refused a grab or the connection is gone.
    func grab(rects: [PixelRect], into slot: Int, originX: Int, originY: Int, scratch: Int) -> Bool {
        let display = connection.display
        let destination = pool.address(ofSlot: slot)
        for rect in rects {
            XErrorTrap.reset(display)
            let source: UnsafeRawPointer
            let sourceStride: Int
            var transient: UnsafeMutablePointer<XImage>?
            defer { if let transient { _ = shim_XDestroyImage(transient) } }
            if let info = segmentInfo {
                let visual = XDefaultVisual(display, connection.screen)
                let depth = UInt32(XDefaultDepth(display, connection.screen))
                guard let image = XShmCreateImage(display, visual, depth, ZPixmap, nil, info,
                                                  UInt32(rect.width), UInt32(rect.height)) else { return false }
                image.pointee.data = pool.address(ofSlot: scratch).assumingMemoryBound(to: CChar.self)
                let ok = XShmGetImage(display, connection.root, image, Int32(originX + rect.x), Int32(originY + rect.y),
                                      shim_AllPlanes())
                let stride = Int(image.pointee.bytes_per_line)
                image.pointee.data = nil
                _ = shim_XDestroyImage(image)
                guard ok != 0, XErrorTrap.take(display) == nil else { return false }
                source = UnsafeRawPointer(pool.address(ofSlot: scratch))
                sourceStride = stride
            } else {
                guard let image = XGetImage(display, connection.root, Int32(originX + rect.x), Int32(originY + rect.y),
                                            UInt32(rect.width), UInt32(rect.height), shim_AllPlanes(), ZPixmap),
                      let data = image.pointee.data else {
                    _ = XErrorTrap.take(display)
                    return false
                }
                transient = image
                source = UnsafeRawPointer(data)
                sourceStride = Int(image.pointee.bytes_per_line)
            }
            let rowBytes = rect.width * 4
            for row in 0..<rect.height {
                memcpy(destination + (rect.y + row) * bytesPerRow + rect.x * 4, source + row * sourceStride, rowBytes)
            }
        }
        return true
    }

    /// Copies `rects` (frame coordinates) of slot `from` into slot `to`.
    func copy(rects: [PixelRect], from: Int, to: Int) {
        let source = pool.address(ofSlot: from)
        let destination = pool.address(ofSlot: to)
        for rect in rects {
            let rowBytes = rect.width * 4
            for row in rect.y..<(rect.y + rect.height) {
                let offset = row * bytesPerRow + rect.x * 4
                memcpy(destination + offset, source + offset, rowBytes)
            }
        }
    }
}
