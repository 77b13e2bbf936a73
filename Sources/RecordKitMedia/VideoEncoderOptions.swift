import CFFmpeg
import Glibc
import RecordKit

/// The codec-private options (`avcodec_open2`'s dictionary) that realise one
/// ``VideoEncoderSettings`` on one libavcodec encoder.
///
/// * libx264: `preset`, `tune`, `crf`; `annexb=0` (AVCC packets). A bitrate is bitrate = maxrate
///   with a one-second VBV and **no** `nal-hrd=cbr`: x264's HRD mode pads every frame with filler
///   NAL units up to the rate (measured: a file sharing the stream's encode grew to the full
///   6 Mbit/s on a static screen), which a live server drops anyway.
/// * libx265: `preset`, `tune`, `crf`, `x265-params=log-level=error` (x265 prints its settings on
///   stderr otherwise). A bitrate sets VBV the same way.
/// * libsvtav1: numeric `preset` (x264 names are mapped), `crf` (1...63). A bitrate is SVT's VBR
///   target with the same maxrate.
/// * any other encoder (`h264_vaapi`, `h264_nvenc`, …): the bitrate only; a CRF is an error, as
///   these encoders have no such option.
package struct VideoEncoderOptions: Sendable {
    /// The dictionary for `avcodec_open2`.
    package var options: [String: String]
    /// The target bitrate in bit/s to set on the context (bit_rate = rc_max_rate, one-second buffer), or nil.
    package let bitRate: Int?
    /// For messages: "preset veryfast, crf 23".
    package let description: String

    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    /// Builds the options; throws a message naming the bad value and the accepted ones.
    package init(settings: VideoEncoderSettings, encoderName: String, id: String) throws(MediaError) {
        var options: [String: String] = [:]
        var bitRate: Int?
        var parts: [String] = [encoderName]
        switch encoderName {
        case "libx264", "libx265":
            guard Self.x264Presets.contains(settings.preset) else {
                throw MediaError("video encoder \(id): preset \(settings.preset) is not a \(encoderName) preset; use one of \(Self.x264Presets.joined(separator: ", "))")
            }
            options["preset"] = settings.preset
            if let tune = settings.tune { options["tune"] = tune }
            options[encoderName == "libx264" ? "x264-params" : "x265-params"] = encoderName == "libx264" ? "annexb=0" : "log-level=error"
            parts.append("preset \(settings.preset)")
        case "libsvtav1":
            setenv("SVT_LOG", "1", 0)  // errors only: SVT-AV1 prints its whole configuration otherwise
            guard let preset = Self.svtPreset(settings.preset) else {
                throw MediaError("video encoder \(id): preset \(settings.preset) is not a libsvtav1 preset; use 0...13 or one of \(Self.x264Presets.joined(separator: ", "))")
            }
            options["preset"] = String(preset)
            parts.append("preset \(preset)")
        default:
            break
        }
        switch settings.rateControl {
        case .crf(let crf):
            switch encoderName {
            case "libx264", "libx265":
                guard (0...51).contains(crf) else { throw MediaError("video encoder \(id): CRF \(crf) is out of range (0...51)") }
            case "libsvtav1":
                guard (1...63).contains(crf) else { throw MediaError("video encoder \(id): CRF \(crf) is out of range for AV1 (1...63)") }
            default:
                throw MediaError("video encoder \(id): \(encoderName) has no constant-quality (CRF) mode; give a bitrate instead")
            }
            options["crf"] = String(crf)
            parts.append("crf \(crf)")
        case .cbr(let bitsPerSecond):
            guard bitsPerSecond >= 10_000 else {
                throw MediaError("video encoder \(id): bitrate \(bitsPerSecond) bit/s is too low (at least 10000)")
            }
            bitRate = bitsPerSecond
            parts.append("\(bitsPerSecond / 1000) kbit/s")
        }
        self.options = options
        self.bitRate = bitRate
        self.description = parts.joined(separator: ", ")
    }

    /// SVT-AV1's preset for a number "0"…"13" or an x264 name (ultrafast 12 … veryslow 4).
    static func svtPreset(_ name: String) -> Int? {
        if let n = Int(name) { return (0...13).contains(n) ? n : nil }
        guard let index = x264Presets.firstIndex(of: name) else { return nil }
        return 12 - index  // ultrafast 12, superfast 11, veryfast 10, faster 9, fast 8, medium 7, …
    }

    /// The codec a libavcodec encoder produces, or nil when FFmpeg has no such video encoder (or
    /// it produces a codec RecordKit does not mux).
    package static func codec(ofEncoder name: String) -> Codec? {
        guard let encoder = avcodec_find_encoder_by_name(name), encoder.pointee.type == AVMEDIA_TYPE_VIDEO else { return nil }
        switch encoder.pointee.id {
        case AV_CODEC_ID_H264: return .h264
        case AV_CODEC_ID_HEVC: return .hevc
        case AV_CODEC_ID_AV1: return .av1
        default: return nil
        }
    }

    /// Whether `name` is a hardware encoder (VAAPI, NVENC, QSV, V4L2, OMX, AMF, VideoToolbox).
    package static func isHardware(_ name: String) -> Bool {
        ["_vaapi", "_nvenc", "_qsv", "_v4l2m2m", "_omx", "_amf", "_videotoolbox", "_mf"].contains { name.hasSuffix($0) }
    }

    /// What to add to an open failure of `encoderName`: for a hardware encoder, that it needs its device.
    static func hint(forEncoder name: String) -> String {
        guard isHardware(name) else { return "" }
        let device = name.hasSuffix("_vaapi") ? "a VAAPI render node (/dev/dri/renderD128) and its driver"
            : name.hasSuffix("_nvenc") ? "an NVIDIA GPU with its driver (libcuda, libnvidia-encode)"
            : name.hasSuffix("_qsv") ? "an Intel GPU with the Media SDK runtime"
            : "its hardware device and driver"
        return ". \(name) is a hardware encoder: it needs \(device), which this machine does not offer;"
            + " use a software encoder (--video-codec h264, hevc or av1)"
    }
}
