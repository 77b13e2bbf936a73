import CFFmpeg

/// One picture of the recording as a PNG or JPEG image (obs-websocket's `GetSourceScreenshot`):
/// the yuv420p picture the video encoder was given (``ConvertedPicture``, BT.709 limited range),
/// scaled by libswscale to the asked size and compressed by libavcodec's `png` or `mjpeg`
/// encoder. FFmpeg does both already (in the process), so no image library is added.
///
/// Threading: a pure function of its arguments; call from any thread (not the capture or
/// encode threads: a 1080p PNG takes tens of milliseconds).
package enum StillImageEncoder {
    /// The image formats, by the names obs-websocket uses.
    package static let formats = ["png", "jpg", "jpeg"]

    /// The size `picture` is scaled to for `width`/`height` (either may be nil), as OBS: scaled
    /// to fit inside both, the aspect ratio kept; none given: the picture's own size.
    package static func size(of picture: ConvertedPicture, width: Int?, height: Int?) -> (width: Int, height: Int) {
        let w = Int(picture.frame.pointee.width), h = Int(picture.frame.pointee.height)
        guard width != nil || height != nil, w > 0, h > 0 else { return (w, h) }
        let scale = min(width.map { Double($0) / Double(w) } ?? .infinity, height.map { Double($0) / Double(h) } ?? .infinity)
        return (max(1, Int((Double(w) * scale).rounded())), max(1, Int((Double(h) * scale).rounded())))
    }

    /// `picture` as a `format` image ("png", "jpg"/"jpeg") of `width`x`height` pixels;
    /// `quality` 0...100 for JPEG (nil: 90); PNG is lossless.
    package static func encode(_ picture: ConvertedPicture, format: String, width: Int, height: Int, quality: Int?) throws(MediaError) -> [UInt8] {
        let png = format == "png"
        let encoderName = png ? "png" : "mjpeg"
        let pixelFormat = png ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUVJ420P
        let source = picture.frame
        guard let scaler = sws_getContext(source.pointee.width, source.pointee.height, AV_PIX_FMT_YUV420P,
                                          Int32(width), Int32(height), pixelFormat, SWS_BICUBIC, nil, nil, nil) else {
            throw MediaError("creating a scaler for a \(width)x\(height) \(format) image failed")
        }
        defer { sws_freeContext(scaler) }
        // In: BT.709 limited range (what the recording's pictures are); out: full range, and for
        // JPEG the BT.601 matrix JFIF defines (what every decoder assumes).
        let bt709 = sws_getCoefficients(SWS_CS_ITU709)
        let out = png ? bt709 : sws_getCoefficients(SWS_CS_ITU601)
        _ = sws_setColorspaceDetails(scaler, bt709, 0, out, 1, 0, 1 << 16, 1 << 16)
        guard let image = av_frame_alloc() else { throw MediaError("allocating an image frame", code: shim_averror(ENOMEM)) }
        defer { var owned: UnsafeMutablePointer<AVFrame>? = image; av_frame_free(&owned) }
        image.pointee.format = pixelFormat.rawValue
        image.pointee.width = Int32(width)
        image.pointee.height = Int32(height)
        let made = av_frame_get_buffer(image, 0)
        if made < 0 { throw MediaError("allocating a \(width)x\(height) image", code: made) }
        let scaled = withUnsafePointer(to: source.pointee.data) { srcData in
            withUnsafePointer(to: source.pointee.linesize) { srcStride in
                withUnsafePointer(to: image.pointee.data) { dstData in
                    withUnsafePointer(to: image.pointee.linesize) { dstStride in
                        srcData.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { s in
                            dstData.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                                srcStride.withMemoryRebound(to: Int32.self, capacity: 8) { ss in
                                    dstStride.withMemoryRebound(to: Int32.self, capacity: 8) { ds in
                                        sws_scale(scaler, s, ss, 0, source.pointee.height, d, ds)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if scaled <= 0 { throw MediaError("scaling the picture to \(width)x\(height) failed") }
        image.pointee.pts = 0

        let codec = try CodecContext(encoderNamed: encoderName)
        codec.pointer.pointee.width = Int32(width)
        codec.pointer.pointee.height = Int32(height)
        codec.pointer.pointee.pix_fmt = pixelFormat
        codec.pointer.pointee.time_base = AVRational(num: 1, den: 1)
        if !png {
            // 0...100 onto mjpeg's qscale 31 (worst) ... 2 (best).
            let q = max(0, min(100, quality ?? 90))
            let qscale = 31 - Int32((Double(q) / 100 * 29).rounded())
            codec.pointer.pointee.flags |= AV_CODEC_FLAG_QSCALE
            codec.pointer.pointee.global_quality = qscale * FF_QP2LAMBDA
            codec.pointer.pointee.color_range = AVCOL_RANGE_JPEG
            image.pointee.quality = qscale * FF_QP2LAMBDA
        }
        try codec.open(options: [:], describing: "\(width)x\(height) \(format)")
        var bytes: [UInt8] = []
        let collect = { (packet: UnsafeMutablePointer<AVPacket>) in
            bytes += UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        try codec.encode(image, what: "encoding a \(format) image", body: collect)
        try codec.encode(nil, what: "finishing a \(format) image", body: collect)
        guard !bytes.isEmpty else { throw MediaError("the \(encoderName) encoder produced no image") }
        return bytes
    }
}
