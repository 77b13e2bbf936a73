import CColorConversion
import CFFmpeg

/// Converts BGR0 pixels of one input size into a yuv420p `AVFrame` with BT.709 limited-range
/// coefficients.
///
/// When the input, rounded down to even dimensions, already has the output size (the usual case:
/// no resizing), the odd last column or row is cropped and the picture goes through
/// `rk_bgr0_to_yuv420p_bt709` (CColorConversion): libswscale's picture for SWS_BILINEAR within 1
/// per sample, in 0.42x its time at 1080p. Resizing goes through an owned `SwsContext`
/// (bicubic, as ffmpeg), freed on deinit.
final class FrameScaler {
    /// The input width this scaler was made for.
    let inputWidth: Int
    /// The input height this scaler was made for.
    let inputHeight: Int
    private let sourceWidth: Int32
    private let sourceHeight: Int32
    /// Resizing only; nil when the picture keeps its size.
    private let context: OpaquePointer?
    /// Row buffers of the direct conversion (it keeps 4 rows of chroma sums), when not resizing.
    private let scratch: UnsafeMutableRawPointer?

    /// Creates a scaler from `inputWidth`x`inputHeight` BGR0 to `outputWidth`x`outputHeight` yuv420p.
    init(inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int) throws(MediaError) {
        let crop = inputWidth & ~1 == outputWidth && inputHeight & ~1 == outputHeight
        let sourceWidth = Int32(crop ? outputWidth : inputWidth)
        let sourceHeight = Int32(crop ? outputHeight : inputHeight)
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        if crop {
            scratch = UnsafeMutableRawPointer.allocate(byteCount: rk_yuv420p_scratch_bytes(Int32(outputWidth)), alignment: 64)
            context = nil
            return
        }
        scratch = nil
        // The input is BGR0; it is declared as BGRA, which has the same layout and whose 4th
        // byte swscale ignores when converting to yuv420p (no alpha plane), because swscale has
        // SIMD input converters for BGRA and not for BGR0: about 2 ms less per 1080p frame.
        guard let context = sws_getContext(sourceWidth, sourceHeight, AV_PIX_FMT_BGRA,
                                           Int32(outputWidth), Int32(outputHeight), AV_PIX_FMT_YUV420P,
                                           SWS_BICUBIC, nil, nil, nil) else {
            throw MediaError("creating a scaler from \(inputWidth)x\(inputHeight) BGR0 to \(outputWidth)x\(outputHeight) yuv420p failed")
        }
        // RGB in is full range; YUV out is BT.709 limited range, as the encoder signals it.
        let bt709 = sws_getCoefficients(SWS_CS_ITU709)
        if sws_setColorspaceDetails(context, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16) < 0 {
            sws_freeContext(context)
            throw MediaError("setting BT.709 limited-range conversion on the \(inputWidth)x\(inputHeight) scaler failed")
        }
        self.context = context
    }

    /// Converts `pixels` (rows of `bytesPerRow` bytes) into `frame`'s planes, which must be
    /// writable and of the output size.
    func scale(_ pixels: UnsafeRawPointer, bytesPerRow: Int, into frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) {
        let planes = frame.pointee.data
        let strides = frame.pointee.linesize
        guard let context else {
            rk_bgr0_to_yuv420p_bt709(pixels.assumingMemoryBound(to: UInt8.self), bytesPerRow, sourceWidth, sourceHeight,
                                     planes.0, Int(strides.0), planes.1, Int(strides.1), planes.2, Int(strides.2), scratch)
            return
        }
        let source: [UnsafePointer<UInt8>?] = [pixels.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        let sourceStrides: [Int32] = [Int32(bytesPerRow), 0, 0, 0]
        let destination: [UnsafeMutablePointer<UInt8>?] = [planes.0, planes.1, planes.2, nil]
        let destinationStrides: [Int32] = [strides.0, strides.1, strides.2, 0]
        let rows = sws_scale(context, source, sourceStrides, 0, sourceHeight, destination, destinationStrides)
        if rows <= 0 {
            throw MediaError("converting a \(inputWidth)x\(inputHeight) BGR0 frame to yuv420p failed (sws_scale returned \(rows))")
        }
    }

    deinit {
        if let context { sws_freeContext(context) }
        scratch?.deallocate()
    }
}
