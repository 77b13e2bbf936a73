import CFFmpeg

/// Converts horizontal bands of a BGR0 picture into the same rows of a yuv420p `AVFrame`
/// of the same size, so a frame in which a few rows changed costs a few bands, not a picture.
///
/// swscale cannot convert arbitrary slices out of order with one context, so every band is
/// converted as a small picture of its own by a context made for ``bandHeight`` rows (and one
/// for the shorter last band), with plane pointers moved to the band. The BGR0-as-BGRA and
/// BT.709 limited-range choices are those of ``FrameScaler``.
final class BandScaler {
    /// Rows per band: a multiple of 2 (4:2:0 chroma rows cover two picture rows).
    static let bandHeight = 16
    /// Picture width.
    let width: Int
    /// Picture height.
    let height: Int
    private let band: OpaquePointer
    private let lastBand: OpaquePointer?

    /// Prepares conversion of `width` × `height` (both even) pictures.
    init(width: Int, height: Int) throws(MediaError) {
        let remainder = height % Self.bandHeight
        guard let band = Self.context(width: width, height: min(Self.bandHeight, height)) else {
            throw MediaError("creating a \(width)x\(Self.bandHeight) band scaler failed")
        }
        var lastBand: OpaquePointer?
        if remainder > 0, height > Self.bandHeight {
            guard let context = Self.context(width: width, height: remainder) else {
                sws_freeContext(band)
                throw MediaError("creating a \(width)x\(remainder) band scaler failed")
            }
            lastBand = context
        }
        self.width = width
        self.height = height
        self.band = band
        self.lastBand = lastBand
    }

    private static func context(width: Int, height: Int) -> OpaquePointer? {
        guard let context = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_BGRA,
                                           Int32(width), Int32(height), AV_PIX_FMT_YUV420P,
                                           SWS_BILINEAR, nil, nil, nil) else { return nil }
        let bt709 = sws_getCoefficients(SWS_CS_ITU709)
        if sws_setColorspaceDetails(context, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16) < 0 {
            sws_freeContext(context)
            return nil
        }
        return context
    }

    /// The bands (first rows) that cover `rows`, in order, each once.
    func bands(covering rows: [Range<Int>]) -> [Int] {
        var starts = Set<Int>()
        for range in rows where !range.isEmpty {
            let first = max(range.lowerBound, 0) / Self.bandHeight
            let last = (min(range.upperBound, height) - 1) / Self.bandHeight
            guard first <= last else { continue }
            for index in first...last { starts.insert(index * Self.bandHeight) }
        }
        return starts.sorted()
    }

    /// Converts the bands covering `rows` of `pixels` into `frame`; returns the rows converted.
    func convert(_ pixels: UnsafeRawPointer, bytesPerRow: Int, rows: [Range<Int>],
                 into frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) -> Int {
        let planes = frame.pointee.data
        let strides = frame.pointee.linesize
        var converted = 0
        for top in bands(covering: rows) {
            let rowsHere = min(Self.bandHeight, height - top)
            let context = rowsHere == Self.bandHeight || lastBand == nil ? band : lastBand!
            let source: [UnsafePointer<UInt8>?] = [(pixels + top * bytesPerRow).assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            let sourceStrides: [Int32] = [Int32(bytesPerRow), 0, 0, 0]
            let destination: [UnsafeMutablePointer<UInt8>?] = [
                planes.0.map { $0 + top * Int(strides.0) },
                planes.1.map { $0 + top / 2 * Int(strides.1) },
                planes.2.map { $0 + top / 2 * Int(strides.2) }, nil]
            let destinationStrides: [Int32] = [strides.0, strides.1, strides.2, 0]
            let done = sws_scale(context, source, sourceStrides, 0, Int32(rowsHere), destination, destinationStrides)
            if done <= 0 { throw MediaError("converting rows \(top)..<\(top + rowsHere) of a \(width)x\(height) frame failed") }
            converted += rowsHere
        }
        return converted
    }

    deinit {
        sws_freeContext(band)
        if let lastBand { sws_freeContext(lastBand) }
    }
}
