import RecordKit

extension SampleBuffer {
    /// Bytes of the payload.
    var byteCount: Int {
        switch payload {
        case .pixels(let p): return p.buffer.count
        case .pcm(let p): return p.buffer.count
        case .packet(let p): return p.data.count
        }
    }
}
