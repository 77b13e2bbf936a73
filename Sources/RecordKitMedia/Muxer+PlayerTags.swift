import CFFmpeg
import RecordKit

extension Muxer {
    /// HEVC in MP4 gets the `hvc1` sample entry (parameter sets in the header only), which
    /// Apple's players and browsers require; FFmpeg's default `hev1` plays in FFmpeg-based players
    /// only. Matroska and FLV need no tag.
    static func tagForPlayers(_ stream: UnsafeMutablePointer<AVStream>, with format: EncodedFormat,
                              muxer: UnsafeMutablePointer<AVFormatContext>) {
        guard format.codec == .hevc else { return }
        tagHEVCForPlayers(stream, muxer: muxer)
    }

    /// Gives an HEVC stream of an MP4/MOV muxer the `hvc1` tag; other streams are left alone.
    static func tagHEVCForPlayers(_ stream: UnsafeMutablePointer<AVStream>, muxer: UnsafeMutablePointer<AVFormatContext>) {
        guard stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC, let name = muxer.pointee.oformat?.pointee.name else { return }
        let muxerName = String(cString: name)
        guard muxerName == "mp4" || muxerName == "mov" || muxerName == "ipod" else { return }
        // MKTAG('h','v','c','1'): little-endian four characters.
        stream.pointee.codecpar.pointee.codec_tag = UInt32(0x68) | UInt32(0x76) << 8 | UInt32(0x63) << 16 | UInt32(0x31) << 24
    }
}
