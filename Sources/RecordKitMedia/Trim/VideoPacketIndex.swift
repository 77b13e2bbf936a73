import CFFmpeg

/// Where one video packet of the input is: its timestamps (in the video stream's time base)
/// and whether it is a key frame (a random access point: an IDR picture for H.264).
struct VideoPacketInfo: Sendable, Equatable {
    var pts: Int64
    var dts: Int64
    var duration: Int64
    var isKey: Bool
    /// H.264 in 4-byte length-prefixed NAL units: the `pic_parameter_set_id` of the packet's
    /// first slice; nil for other codecs or when it cannot be read.
    var pictureSetID: Int? = nil
}

/// Every packet of the input's video stream, in decode (file) order: the first pass of a trim,
/// which reads packet headers only (no decoding).
enum VideoPacketIndex {
    static func scan(_ input: TrimInput) throws(MovieTrimError) -> [VideoPacketInfo] {
        guard let packet = av_packet_alloc() else { throw .failed(message: "allocating a packet: out of memory") }
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        let noValue = shim_av_nopts_value()
        let isAVC = input.video.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_H264
            && AVCParameterSets(avcC: MovieTrimmer.extradata(of: input.video)) != nil
        var packets: [VideoPacketInfo] = []
        var previousDts = Int64.min
        while true {
            let read = av_read_frame(input.context, packet)
            if read == shim_averror_eof() { break }
            if read < 0 { throw .failed(message: "reading \(input.path): \(MediaError.describe(read))") }
            defer { av_packet_unref(packet) }
            guard Int(packet.pointee.stream_index) == input.videoIndex else { continue }
            var pts = packet.pointee.pts
            var dts = packet.pointee.dts
            if pts == noValue { pts = dts }
            if dts == noValue { dts = pts }
            guard pts != noValue else {
                throw .notAMovie(path: input.path, reason: "video packet \(packets.count) has no timestamp")
            }
            if dts <= previousDts { dts = previousDts + 1 }
            previousDts = dts
            let setID = isAVC ? packet.pointee.data.flatMap { firstSlicePictureSetID(UnsafeBufferPointer(start: $0, count: Int(packet.pointee.size))) } : nil
            packets.append(VideoPacketInfo(pts: pts, dts: dts, duration: max(packet.pointee.duration, 0),
                                           isKey: packet.pointee.flags & AV_PKT_FLAG_KEY != 0, pictureSetID: setID))
        }
        // A packet without a duration lasts until the next frame (the last one: as long as the one before).
        let order = packets.indices.sorted { packets[$0].pts < packets[$1].pts }
        for (rank, index) in order.enumerated() where packets[index].duration == 0 {
            if rank + 1 < order.count {
                packets[index].duration = max(1, packets[order[rank + 1]].pts - packets[index].pts)
            } else if rank > 0 {
                packets[index].duration = max(1, packets[index].pts - packets[order[rank - 1]].pts)
            } else {
                packets[index].duration = 1
            }
        }
        return packets
    }

    /// The PPS id of the first slice (NAL type 1 or 5) in length-prefixed NAL units: the third
    /// Exp-Golomb value of its header (after first_mb_in_slice and slice_type).
    static func firstSlicePictureSetID(_ data: UnsafeBufferPointer<UInt8>) -> Int? {
        var offset = 0
        while offset + 5 <= data.count {
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            offset += 4
            guard length > 0, offset + length <= data.count else { return nil }
            let type = data[offset] & 0x1F
            if type == 1 || type == 5 {
                let header = Array(data[offset..<min(offset + length, offset + 16)])
                return AVCParameterSets.expGolombs(header, skipping: 1, count: 3)?.last
            }
            offset += length
        }
        return nil
    }
}
