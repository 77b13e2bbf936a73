extension SampleBuffer {
    /// This sample moved earlier on the time axis by `offsetNs` nanoseconds: its presentation
    /// time and, for an encoded packet, its decode time, each kept in its own timescale. The
    /// payload's memory is shared, not copied. For a clip or a file part that starts at zero
    /// (the replay buffer's saved clips, split files). Everything else is kept (``replacing(type:presentationTime:duration:payload:)``).
    public func shifted(byNanoseconds offsetNs: Int64) -> SampleBuffer {
        guard offsetNs != 0 else { return self }
        let pts = MediaTime.nanoseconds(presentationTime.nanoseconds - offsetNs).converted(to: presentationTime.timescale)
        var moved = payload
        if case .packet(let p) = payload {
            let dts = MediaTime.nanoseconds(p.decodeTime.nanoseconds - offsetNs).converted(to: p.decodeTime.timescale)
            moved = .packet(p.replacing(decodeTime: dts))
        }
        return replacing(presentationTime: pts, payload: moved)
    }
}
