import RecordKit

/// Moves samples on the time axis, for a part of a split recording that starts at zero.
enum SampleRetiming {
    /// `sample` with `offsetNs` subtracted from its presentation and decode times (kept in their
    /// own timescales); the payload's memory is shared, not copied.
    static func shifted(_ sample: SampleBuffer, byNs offsetNs: Int64) -> SampleBuffer {
        guard offsetNs != 0 else { return sample }
        let pts = sample.presentationTime
        let shiftedPTS = MediaTime.nanoseconds(pts.nanoseconds - offsetNs).converted(to: pts.timescale)
        var payload = sample.payload
        if case .packet(let p) = sample.payload {
            let dts = MediaTime.nanoseconds(p.decodeTime.nanoseconds - offsetNs).converted(to: p.decodeTime.timescale)
            payload = .packet(EncodedPacket(data: p.data, decodeTime: dts, isKeyFrame: p.isKeyFrame, encoderID: p.encoderID))
        }
        return SampleBuffer(type: sample.type, presentationTime: shiftedPTS, duration: sample.duration,
                            formatDescription: sample.formatDescription, payload: payload)
    }
}
