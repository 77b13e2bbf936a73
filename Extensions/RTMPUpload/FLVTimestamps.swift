import RecordKit

/// Puts packets on the FLV timeline: milliseconds of broadcast time, plus one fixed offset,
/// across every connection of a broadcast.
///
/// FLV timestamps cannot be negative, but a broadcast's first packets can be: x264's first
/// decode times come before zero when it uses B-frames, and the AAC encoder's priming packet
/// starts at −1024 samples. The offset is settled once, by the first packet ever written (a video
/// key frame, ``PacketQueue/startSession()``): just enough to make its decode time zero, or
/// nothing when it is not negative. Every later packet, on this connection or any later one,
/// keeps the same offset, so after a reconnection the stream goes on at the broadcast time it
/// has reached instead of starting again at zero, as nginx-rtmp's recordings and players
/// expect of one continuing broadcast.
///
/// Per stream, decode times must increase: a packet that would not (it can only happen when
/// packets arrive out of order) is refused, and the caller drops it.
struct FLVTimestamps {
    /// The offset in milliseconds, once settled.
    private(set) var offsetMilliseconds: Int64?
    /// The last decode time written per stream, in milliseconds on the FLV timeline.
    private var lastDecodeTime: [Int: Int64] = [:]

    /// `sample` with its times on the FLV timeline (timescale 1000), for stream `stream`; nil
    /// when it must be dropped because its decode time would not increase.
    mutating func stamp(_ sample: SampleBuffer, stream: Int) -> SampleBuffer? {
        guard case .packet(let packet) = sample.payload else { return nil }
        let decode = packet.decodeTime.converted(to: 1000).value
        let offset = offsetMilliseconds ?? max(0, -decode)
        let dts = decode + offset
        guard dts >= 0, lastDecodeTime[stream].map({ dts > $0 }) ?? true else { return nil }
        offsetMilliseconds = offset
        lastDecodeTime[stream] = dts
        let pts = max(dts, sample.presentationTime.converted(to: 1000).value + offset)
        let duration = max(0, sample.duration.converted(to: 1000).value)
        let stamped = packet.replacing(decodeTime: MediaTime(value: dts, timescale: 1000))
        return sample.replacing(presentationTime: MediaTime(value: pts, timescale: 1000), duration: MediaTime(value: duration, timescale: 1000),
                                payload: .packet(stamped))
    }

    /// The broadcast time, in milliseconds, that FLV time `milliseconds` stands for.
    func broadcastMilliseconds(ofFLV milliseconds: Int64) -> Int64 { milliseconds - (offsetMilliseconds ?? 0) }
}
