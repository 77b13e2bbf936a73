import Foundation
import RecordKitDigest

/// A presigned URL: one `PUT` of the whole file, read from disk on the upload thread as libcurl
/// sends it; on failure it is retried whole (a presigned PUT cannot resume). Pause and cancel
/// end the PUT at the next piece. Checked at the end: the ETag the server answers is the MD5
/// computed while sending (S3 servers answer a single PUT's ETag so).
struct PresignedTransfer: UploadTransfer {
    func run(_ record: inout UploadRecord, context: UploadContext) throws(UploadError) {
        guard case .presigned(let url) = record.target else { throw UploadError(.badTarget, "not a presigned upload") }
        let host = URLComponents(string: url).map { c in c.port.map { "\(c.host ?? ""):\($0)" } ?? (c.host ?? "") } ?? "the server"
        try context.checkpoint(record.id)
        try record.identity.check(record.path)
        let size = record.identity.size
        let source = PresignedBodySource(reader: try FilePieceReader(path: record.path), size: size)
        let id = record.id
        record.bytesDone = 0
        try context.save(record)
        let reply = try context.transport.send(.PUT, url: url, headers: [("Content-Type", "application/octet-stream")],
                                               body: .stream(length: size) { buffer throws(UploadError) in
                                                   try context.checkpoint(id)
                                                   let n = try source.fill(buffer)
                                                   context.rate.consume(n)
                                                   return n
                                               }, host: host)
        guard (200..<300).contains(reply.status) else {
            throw UploadError(.permanent, "\(host) refused the presigned PUT: HTTP \(reply.status)\(S3ErrorBody.summary(reply.text)) (expired or wrong URL?)")
        }
        try record.identity.check(record.path)
        record.bytesDone = source.offset
        record.etag = reply.header("ETag")
        record.verified = source.offset == size && "\"\(SigV4Signer.hex(source.md5.finalize()))\"" == record.etag
        record.objectURL = UploadTarget.redact(url)
        record.state = .completed
    }

    func abandon(_ record: UploadRecord, context: UploadContext) throws(UploadError) {}
}

/// The file of a presigned PUT as libcurl asks for it, piece by piece, hashed as it goes.
/// Used on the upload thread only.
private final class PresignedBodySource {
    private let reader: FilePieceReader
    private let size: Int64
    /// The bytes handed to libcurl so far.
    private(set) var offset: Int64 = 0
    let md5 = MD5()

    init(reader: consuming FilePieceReader, size: Int64) {
        self.reader = reader
        self.size = size
    }

    /// The next bytes into `buffer` (0 at the end); throws `fileChanged` when the file ends early.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(UploadError) -> Int {
        let want = Int(min(Int64(buffer.count), size - offset))
        guard want > 0 else { return 0 }
        let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[..<want])
        let got = reader.fill(piece, at: offset)
        guard got == want else { throw UploadError(.fileChanged, "\(reader.path) is shorter than when its upload began") }
        md5.update(bufferPointer: UnsafeRawBufferPointer(piece))
        offset += Int64(got)
        return got
    }
}
