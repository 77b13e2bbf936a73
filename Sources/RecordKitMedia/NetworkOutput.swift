import CFFmpeg
import Glibc

/// A write-only connection opened with libavformat's protocols (`rtmp://`, `rtmps://`, …): an
/// owned `AVIOContext`, closed on ``close()`` or deinit.
///
/// Opening it is the whole connection set-up. For RTMP that is the TCP (and TLS) connection,
/// the handshake, `connect` to the application and `publish` of the stream, so a refused
/// connection or a rejected stream key fails here, before any stream format is known. A
/// ``Muxer`` created with ``Muxer/init(output:name:container:streams:options:)`` then writes
/// the container into it; closing the output ends the publish (`FCUnpublish`, `deleteStream`).
///
/// Every blocking call is bounded by the ``IOInterrupt`` given at creation: a deadline for each
/// call, and an abort from another thread.
///
/// Secrets: the URL is only passed to libavformat. Messages name the output by ``name``, which
/// the caller chooses (for a URL with a stream key, a masked form of it).
///
/// Threading: not thread-safe; use one output from one thread (its interrupt excepted).
package final class NetworkOutput: @unchecked Sendable {
    /// What messages call this output.
    package let name: String
    /// The I/O context; the muxer writes into it. Nil once closed.
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private let interrupt: IOInterrupt
    private var finalPosition: Int64 = 0

    /// Opens `url` for writing.
    ///
    /// - Parameters:
    ///   - url: a URL of a protocol libavformat has (``supportsOutputProtocol(_:)``).
    ///   - name: what messages call the output (must not contain secrets).
    ///   - options: protocol options (`rtmp_app`, `rtmp_playpath`, `tcp_nodelay`, …); an option
    ///     the protocol does not know is an error.
    ///   - interrupt: bounds every blocking call, this one included; it must outlive the output
    ///     (the output keeps a reference).
    /// - Throws: ``MediaError`` whose ``MediaError/code`` is FFmpeg's (`AVERROR(ECONNREFUSED)`,
    ///   `AVERROR(EIO)` when the server closed the connection during the handshake,
    ///   `AVERROR_EXIT` when the interrupt fired) and whose message names `name`, never `url`.
    package init(url: String, name: String, options: [String: String] = [:], interrupt: IOInterrupt) throws(MediaError) {
        self.name = name
        self.interrupt = interrupt
        let dictionary = OptionDictionary(options)
        var callback = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<IOInterrupt>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        var opened: UnsafeMutablePointer<AVIOContext>? = nil
        let result = avio_open2(&opened, url, AVIO_FLAG_WRITE, &callback, &dictionary.pointer)
        guard result >= 0, let opened else {
            throw MediaError("connecting to \(name)", code: result < 0 ? result : shim_averror(EIO))
        }
        context = opened
        let unknown = dictionary.remainingKeys
        if !unknown.isEmpty {
            avio_closep(&context)
            throw MediaError("connecting to \(name) failed: the protocol does not know the option(s) \(unknown.joined(separator: ", "))")
        }
    }

    /// Bytes written into the connection so far (what the muxer handed over; with the muxer's
    /// `flush_packets` that is what was sent); after ``close()``, the final count.
    package var bytesWritten: Int64 {
        guard let context else { return finalPosition }
        return avio_tell(context)
    }

    /// Flushes and closes the connection (for RTMP: unpublishes). Bounded by the interrupt.
    /// Idempotent; throws the first error flushing or closing met.
    package func close() throws(MediaError) {
        guard let context else { return }
        avio_flush(context)
        let flushError = context.pointee.error
        finalPosition = avio_tell(context)
        let closed = avio_closep(&self.context)
        if flushError < 0 { throw MediaError("flushing \(name)", code: flushError) }
        if closed < 0 { throw MediaError("closing \(name)", code: closed) }
    }

    /// Closes without reporting errors; bounded by the interrupt like every call.
    deinit {
        if context != nil { avio_closep(&context) }
    }

    /// Whether libavformat can write to URLs of `scheme` (`"rtmp"`, `"rtmps"`: the latter only
    /// in builds with TLS).
    package static func supportsOutputProtocol(_ scheme: String) -> Bool {
        var opaque: UnsafeMutableRawPointer? = nil
        while let name = avio_enum_protocols(&opaque, 1) {
            if String(cString: name) == scheme { return true }
        }
        return false
    }
}

extension MediaError {
    /// Whether FFmpeg reported the end of the stream (`AVERROR_EOF`): for a connection, the peer
    /// closed it.
    package var isEndOfFile: Bool { code == shim_averror_eof() }

    /// Whether a blocking call was cut short by its ``IOInterrupt`` (`AVERROR_EXIT`).
    package var isInterrupted: Bool { code == MediaError.exitCode }

    /// `AVERROR_EXIT`, `FFERRTAG('E','X','I','T')` (a macro Swift cannot import).
    private static let exitCode: Int32 = -Int32(bitPattern: UInt32(UInt8(ascii: "E")) | UInt32(UInt8(ascii: "X")) << 8
                                                | UInt32(UInt8(ascii: "I")) << 16 | UInt32(UInt8(ascii: "T")) << 24)
}
