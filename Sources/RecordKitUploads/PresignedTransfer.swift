import AsyncHTTPClient
import CShims
import Foundation
import NIOCore
import RecordKitDigest

/// A presigned URL: one `PUT` of the whole file, streamed from a reader thread of low priority
/// in 1 MiB pieces; on failure it is retried whole (a presigned PUT cannot resume). Checked at
/// the end: the ETag the server answers is the MD5 computed while sending (S3 servers answer a
/// single PUT's ETag so). Pause and cancel take effect between attempts, not during one.
struct PresignedTransfer: UploadTransfer {
    func run(_ record: inout UploadRecord, context: UploadContext) throws(UploadError) {
        guard case .presigned(let url) = record.target else { throw UploadError(.badTarget, "not a presigned upload") }
        let host = URLComponents(string: url).map { c in c.port.map { "\(c.host ?? ""):\($0)" } ?? (c.host ?? "") } ?? "the server"
        try context.checkpoint(record.id)
        try record.identity.check(record.path)
        let size = record.identity.size
        let path = record.path
        let rate = context.rate
        let digest = LockedBox<String?>(nil)
        let progress = LockedBox<Int64>(0)
        let group = context.transport.client.eventLoopGroup
        let body = HTTPClient.Body.stream(contentLength: size) { writer in
            let promise = group.next().makePromise(of: Void.self)
            Thread.detachNewThread {
                _ = cshim_lower_thread_priority(10, 7)
                do {
                    let reader = try FilePieceReader(path: path)
                    let md5 = MD5()
                    var offset: Int64 = 0
                    while offset < size {
                        let piece = try reader.read(offset..<min(size, offset + (1 << 20)))
                        piece.withUnsafeReadableBytes { md5.update(bufferPointer: $0) }
                        rate.consume(piece.readableBytes)
                        try writer.write(.byteBuffer(piece)).wait()
                        offset += Int64(piece.readableBytes)
                        progress.set(offset)
                    }
                    digest.set(SigV4Signer.hex(md5.finalize()))
                    promise.succeed(())
                } catch {
                    promise.fail(error)
                }
            }
            return promise.futureResult
        }
        record.bytesDone = 0
        try context.save(record)
        let reply = try context.transport.send(method: .PUT, url: url, headers: [("Content-Type", "application/octet-stream")], body: body, host: host)
        guard (200..<300).contains(reply.status) else {
            throw UploadError(.permanent, "\(host) refused the presigned PUT: HTTP \(reply.status)\(S3ErrorBody.summary(reply.text)) (expired or wrong URL?)")
        }
        try record.identity.check(record.path)
        record.bytesDone = progress.value
        record.etag = reply.header("ETag")
        record.verified = record.bytesDone == size && digest.value.map { "\"\($0)\"" == record.etag } == true
        record.objectURL = UploadTarget.redact(url)
        record.state = .completed
    }

    func abandon(_ record: UploadRecord, context: UploadContext) throws(UploadError) {}
}
