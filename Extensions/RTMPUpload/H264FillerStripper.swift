import RecordKit

/// Removes H.264 filler data (NAL unit type 12) from video packets before they go on the wire.
///
/// x264's constant-bitrate mode (`nal-hrd=cbr`) pads every frame with filler up to the bitrate,
/// and pads for the whole gap when frames are missing (an encoder that fell behind and dropped
/// some): one packet then holds seconds' worth of filler. Such a packet is useless and harmful
/// on a network: nginx-rtmp closes the connection on a message over 1 MB (its `max_message`),
/// and a service's ingest would see a burst far above the stream's rate. A static screen at
/// 6000 kbit/s is also nearly all filler. Without filler the stream stays within its rate,
/// never above it; decoders ignore filler, so the pictures are the same.
///
/// Packets are AVCC (4-byte big-endian NAL lengths, what ``VideoEncoder`` emits). A packet
/// without filler is returned as is (no copy); one with filler is copied without it. A packet
/// that does not parse as AVCC is returned unchanged.
enum H264FillerStripper {
    /// `sample` without filler NAL units.
    static func strip(_ sample: SampleBuffer) -> SampleBuffer {
        guard sample.type == .video, case .packet(let packet) = sample.payload else { return sample }
        let bytes = packet.data.bytes
        var keep: [Range<Int>] = []
        var offset = 0
        var sawFiller = false
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { return sample }
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 4 + length
            guard length > 0, end <= bytes.count else { return sample }
            if bytes[offset + 4] & 0x1F == 12 {
                sawFiller = true
            } else {
                keep.append(offset..<end)
            }
            offset = end
        }
        guard sawFiller, !keep.isEmpty else { return sample }
        var stripped: [UInt8] = []
        stripped.reserveCapacity(keep.reduce(0) { $0 + $1.count })
        for range in keep { stripped += bytes[range] }
        let data = MediaBuffer(copying: stripped)
        return sample.replacing(payload: .packet(packet.replacing(data: data)))
    }
}
