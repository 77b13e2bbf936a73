import CFFmpeg

/// Whether an encoder can take the pictures RecordKit gives its video encoders: `yuv420p` in
/// system memory. Encoders that take only hardware frames (`h264_vaapi`: VAAPI surfaces) or
/// other layouts (`h264_qsv`: `nv12`, `p010le` or QSV surfaces) can never open here, whatever
/// the machine's hardware, because RecordKit has no upload to a hardware device
/// (no hardware frames context): they are refused with that reason instead of a complaint about a missing device.
/// Threading: any thread.
enum EncoderInputFormat {
    /// Why `encoderName` cannot be used, or nil when it takes `yuv420p` (or lists no formats,
    /// or is not an encoder of this FFmpeg: opening it says so).
    static func refusal(for encoderName: String) -> String? {
        guard let codec = avcodec_find_encoder_by_name(encoderName), let formats = codec.pointee.pix_fmts else { return nil }
        var names: [String] = []
        var hardwareOnly = true
        var index = 0
        while formats[index] != AV_PIX_FMT_NONE {
            let format = formats[index]
            if format == AV_PIX_FMT_YUV420P { return nil }
            if let descriptor = av_pix_fmt_desc_get(format) {
                names.append(String(cString: descriptor.pointee.name))
                if descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0 { hardwareOnly = false }
            }
            index += 1
        }
        let takes = hardwareOnly
            ? "takes only pictures in a hardware device's memory (\(names.joined(separator: ", ")))"
            : "takes only \(names.joined(separator: ", ")) pictures"
        return "\(encoderName) \(takes), and RecordKit gives its encoders yuv420p pictures in system memory "
            + "(it has no upload to a hardware device), so \(encoderName) cannot open on any machine; "
            + "use a software encoder (libx264, the default; libx265 or libsvtav1 with --video-codec)"
    }
}
