import CFFmpeg
import RecordKit

/// Turns an encoder's `AVPacket` into a ``MediaBuffer`` without copying its bytes.
enum PacketBuffer {
    /// Wraps the bytes of `packet` (allocated with `av_packet_alloc`, reference-counted) in a
    /// buffer that owns the packet: the packet is freed with `av_packet_free` when the last
    /// reference to the buffer goes away. The caller must not use or free `packet` afterwards.
    static func adopting(_ packet: UnsafeMutablePointer<AVPacket>) -> MediaBuffer {
        let bytes = UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
        // The address crosses into a @Sendable closure as an integer: the buffer is the only owner.
        let address = UInt(bitPattern: packet)
        return MediaBuffer(bytes: bytes) {
            var owned = UnsafeMutablePointer<AVPacket>(bitPattern: address)
            av_packet_free(&owned)
        }
    }

    /// Makes an `AVPacket` whose data is `buffer`'s bytes, shared, not copied: the packet's
    /// `AVBufferRef` holds a strong reference to `buffer` and drops it when FFmpeg frees the
    /// packet (which may be later than the call that passed it, as with
    /// `av_interleaved_write_frame`). The buffer is marked read-only, so FFmpeg copies before it
    /// would ever write. Returns nil for an empty buffer or when allocation fails.
    static func packet(referencing buffer: MediaBuffer) -> UnsafeMutablePointer<AVPacket>? {
        guard buffer.count > 0, let base = buffer.bytes.baseAddress else { return nil }
        guard let packet = av_packet_alloc() else { return nil }
        let retained = Unmanaged.passRetained(buffer).toOpaque()
        let data = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        guard let reference = av_buffer_create(data, buffer.count, { opaque, _ in
            guard let opaque else { return }
            Unmanaged<MediaBuffer>.fromOpaque(opaque).release()
        }, retained, Int32(AV_BUFFER_FLAG_READONLY)) else {
            Unmanaged<MediaBuffer>.fromOpaque(retained).release()
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
            return nil
        }
        packet.pointee.buf = reference
        packet.pointee.data = data
        packet.pointee.size = Int32(buffer.count)
        return packet
    }
}
