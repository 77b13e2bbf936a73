import Glibc

/// One kind of target's transfer (S3 multipart, presigned PUT, tus): runs or resumes an upload
/// on the calling thread, which is the queue's upload thread (blocking; never the cooperative
/// pool), reporting every confirmed piece through ``UploadContext/save``.
package protocol UploadTransfer: Sendable {
    /// Uploads what the server does not have yet, asking it first when the record says an
    /// upload was begun; on success the record is `completed` with its object URL and ETag.
    func run(_ record: inout UploadRecord, context: UploadContext) throws(UploadError)
    /// Removes what the server holds of an unfinished upload (abort, tus termination).
    func abandon(_ record: UploadRecord, context: UploadContext) throws(UploadError)
}

/// What a transfer may use and must call, handed over by ``UploadQueue``. Its closures are
/// called on the upload thread.
package struct UploadContext: Sendable {
    package var transport: HTTPTransport
    package var environment: [String: String]
    /// Requests started before the oldest is waited for (S3 parts).
    package var maxPartsInFlight: Int
    package var rate: RateLimiter
    /// Persists `record` (journal) and publishes its progress.
    package var save: @Sendable (UploadRecord) throws(UploadError) -> Void
    /// Throws `paused` or `cancelled` when the user asked for it: called between pieces.
    package var checkpoint: @Sendable (String) throws(UploadError) -> Void
    /// An informational event about the upload (the server forgot it, …).
    package var note: @Sendable (UploadRecord, String) -> Void
}

extension UploadTarget {
    /// The transfer for this kind of target.
    package var transfer: any UploadTransfer {
        switch self {
        case .s3: return S3Transfer()
        case .presigned: return PresignedTransfer()
        case .tus: return TusTransfer()
        }
    }
}

/// Reads a local file's pieces with `pread`, on the upload thread.
package struct FilePieceReader: ~Copyable {
    let fd: Int32
    let path: String

    /// Opens `path` for reading.
    package init(path: String) throws(UploadError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UploadError(.fileChanged, "cannot open \(path): \(String(cString: strerror(errno)))") }
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// The bytes of `range` (throws `fileChanged` when the file is shorter now).
    package func read(_ range: Range<Int64>) throws(UploadError) -> [UInt8] {
        let count = Int(range.count)
        var got = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            got = fill(UnsafeMutableRawBufferPointer(buffer), at: range.lowerBound)
            initialized = got
        }
        guard got == count else { throw UploadError(.fileChanged, "\(path) is shorter than when its upload began") }
        return bytes
    }

    /// Fills `buffer` from `offset` on; returns how many bytes were read (fewer only at the
    /// file's end or on a read error).
    package func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        return done
    }
}
