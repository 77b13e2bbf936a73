/// One picture format a camera offers at one size, as PipeWire lists it (a camera node's
/// EnumFormat), and the choice among them (``best(of:framesPerSecond:decodesMJPEG:)``).
package struct CameraFormatOffer: Sendable, Equatable, CustomStringConvertible {
    /// How the camera sends its pictures, in order of preference at one size.
    package enum Encoding: Int, Sendable, CaseIterable {
        /// 4 bytes per pixel, read as they come.
        case bgrx, bgra, rgbx, rgba
        /// Packed 4:2:2 YUV (what USB cameras send uncompressed, at low rates beyond 640x480).
        case yuy2
        /// Planar 4:2:0 YUV: a Y plane and one interleaved U V plane, or three planes.
        case nv12, i420
        /// Motion JPEG: one JPEG per picture (what USB cameras send at 720p and 1080p),
        /// decoded on the camera's thread.
        case mjpeg

        /// GStreamer's and PipeWire's name ("BGRx", "YUY2", "MJPEG").
        package var name: String {
            switch self {
            case .bgrx: "BGRx"
            case .bgra: "BGRA"
            case .rgbx: "RGBx"
            case .rgba: "RGBA"
            case .yuy2: "YUY2"
            case .nv12: "NV12"
            case .i420: "I420"
            case .mjpeg: "MJPEG"
            }
        }

        /// Whether pictures come uncompressed (converted, never decoded).
        package var isRaw: Bool { self != .mjpeg }
    }

    /// How the pictures come.
    package var encoding: Encoding
    /// Width in pixels.
    package var width: Int
    /// Height in pixels.
    package var height: Int
    /// The highest whole frame rate offered at this size; 0 when the camera does not say.
    package var maxFramesPerSecond: Int

    /// Describes an offer.
    package init(_ encoding: Encoding, width: Int, height: Int, maxFramesPerSecond: Int) {
        self.encoding = encoding
        self.width = width
        self.height = height
        self.maxFramesPerSecond = maxFramesPerSecond
    }

    /// "MJPEG 1280x720 30 fps".
    package var description: String {
        "\(encoding.name) \(width)x\(height)" + (maxFramesPerSecond > 0 ? " \(maxFramesPerSecond) fps" : "")
    }

    /// The offer to ask the camera for, or nil when none is readable (MJPEG without a decoder,
    /// a YUV size of odd width).
    ///
    /// 1. Rate: only offers that reach `framesPerSecond` count (or, when none does, those that
    ///    reach the best rate any offer reaches), so a camera's 1080p YUY2 at 5 fps loses to its
    ///    1080p MJPEG at 30 fps. An offer that does not say its rate counts as fast enough.
    /// 2. Size: the largest that fits in 1920x1080 (the most a recording's corner or camera
    ///    track uses); when none fits, the smallest.
    /// 3. Format, at that size: raw before MJPEG (a conversion costs less than a decode and
    ///    loses nothing), RGB first, then YUY2, NV12, I420; among equals the faster.
    package static func best(of offers: [CameraFormatOffer], framesPerSecond: Int, decodesMJPEG: Bool) -> CameraFormatOffer? {
        let usable = offers.filter { offer in
            guard offer.width >= 2, offer.height >= 2 else { return false }
            switch offer.encoding {
            case .bgrx, .bgra, .rgbx, .rgba: return true
            case .yuy2: return offer.width % 2 == 0
            case .nv12, .i420: return offer.width % 2 == 0 && offer.height % 2 == 0
            case .mjpeg: return decodesMJPEG
            }
        }
        func rate(_ offer: CameraFormatOffer) -> Int { offer.maxFramesPerSecond > 0 ? offer.maxFramesPerSecond : Int.max }
        guard let fastest = usable.map(rate).max() else { return nil }
        let wanted = min(max(framesPerSecond, 1), fastest)
        let fast = usable.filter { rate($0) >= wanted }
        let area = { (offer: CameraFormatOffer) in offer.width * offer.height }
        guard let size = fast.filter({ $0.width <= 1920 && $0.height <= 1080 }).max(by: { area($0) < area($1) })
                ?? fast.min(by: { area($0) < area($1) }) else { return nil }
        return fast.filter { $0.width == size.width && $0.height == size.height }
            .min { a, b in a.encoding.rawValue != b.encoding.rawValue ? a.encoding.rawValue < b.encoding.rawValue : rate(a) > rate(b) }
    }
}
