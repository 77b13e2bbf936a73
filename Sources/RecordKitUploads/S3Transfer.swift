import Foundation
import RecordKitDigest

/// S3 multipart: create (once: the upload id goes to the journal before any part), parts with
/// `Content-MD5` (up to `maxPartsInFlight` at once), complete, then `HeadObject` to check size
/// and multipart ETag. A resumed upload first asks `ListParts` and sends only what is missing;
/// an upload the server forgot starts over (or is found already complete).
struct S3Transfer: UploadTransfer {
    func run(_ record: inout UploadRecord, context: UploadContext) throws(UploadError) {
        guard case .s3(let bucket, _) = record.target, let key = record.key else { throw UploadError(.badTarget, "not an S3 upload") }
        let credentials = try S3Credentials.resolve(profile: record.s3.profile, environment: context.environment)
        let client = try S3Client(transport: context.transport, bucket: bucket, options: record.s3, credentials: credentials,
                                  environment: context.environment)
        do throws(UploadError) {
            try transfer(&record, key: key, client: client, context: context)
        } catch where error.kind == .forgotten {
            // The server lost the multipart upload: maybe because it was completed just before a
            // crash (then the object is there, whole), else start over once.
            if try finishedAlready(&record, key: key, client: client) { return }
            record.restarts += 1
            record.uploadID = nil
            record.parts = []
            record.bytesDone = 0
            try context.save(record)
            context.note(record, "the server forgot multipart upload of \(record.path) (restarted?); starting it over from the first byte")
            try transfer(&record, key: key, client: client, context: context)
        }
    }

    private func transfer(_ record: inout UploadRecord, key: String, client: S3Client, context: UploadContext) throws(UploadError) {
        try record.identity.check(record.path)
        let plan = PartPlan(fileSize: record.identity.size, preferred: record.partSize)
        record.partSize = plan.partSize
        if let uploadID = record.uploadID {
            let listed = try client.listParts(key: key, uploadID: uploadID)
            let known = Dictionary(record.parts.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
            // Keep a listed part only if it has the planned size and (when we know it) our MD5.
            record.parts = listed.filter { p in
                p.number >= 1 && p.number <= plan.count && p.size == plan.range(of: p.number).count
                    && (known[p.number]?.md5 == nil || p.md5 == nil || known[p.number]?.md5 == p.md5)
            }.map { p in var q = p; q.md5 = q.md5 ?? known[p.number]?.md5; return q }
            record.bytesDone = record.parts.reduce(0) { $0 + $1.size }
            try context.save(record)
        } else {
            if let existing = try client.head(key: key) {
                throw UploadError(.permanent, "an object already exists at s3://\(client.bucket)/\(key) (\(existing.size) bytes): not overwritten; "
                                  + "delete it or choose another name template")
            }
            record.uploadID = try client.createMultipartUpload(key: key)
            record.parts = []
            record.bytesDone = 0
            try context.save(record)
        }
        let uploadID = record.uploadID!
        let have = Set(record.parts.map(\.number))
        let reader = try FilePieceReader(path: record.path)
        var inflight: [(number: Int, md5: String, size: Int64, request: PendingHTTPRequest)] = []
        var firstError: UploadError?

        func drainOne(_ record: inout UploadRecord) {
            let f = inflight.removeFirst()
            do throws(UploadError) {
                let reply = try client.transport.wait(f.request, host: client.hostForErrors)
                guard reply.status == 200 else {
                    if reply.status == 400, S3ErrorBody.code(reply.text) == "BadDigest" {
                        throw UploadError(.transient, "part \(f.number) arrived damaged (BadDigest); sending it again")
                    }
                    throw client.failure(reply, doing: "uploading part \(f.number)")
                }
                let etag = reply.header("ETag") ?? "\"\(f.md5)\""
                record.parts.append(.init(number: f.number, etag: etag, size: f.size, md5: f.md5))
                record.bytesDone += f.size
                record.attempts = 0
                try context.save(record)
            } catch {
                if firstError == nil { firstError = error }
            }
        }

        for number in 1...plan.count where !have.contains(number) {
            if firstError != nil { break }
            do throws(UploadError) {
                try context.checkpoint(record.id)
                try record.identity.check(record.path)
                let body = try reader.read(plan.range(of: number))
                let md5 = MD5.hash(data: body)
                context.rate.consume(body.count)
                inflight.append((number, SigV4Signer.hex(md5), Int64(body.count),
                                 client.startUploadPart(key: key, uploadID: uploadID, number: number, body: body, md5: md5)))
            } catch {
                firstError = error
                break
            }
            if inflight.count >= max(1, context.maxPartsInFlight) { drainOne(&record) }
        }
        while !inflight.isEmpty { drainOne(&record) }
        if let firstError { throw firstError }

        try record.identity.check(record.path)
        let etag = try client.complete(key: key, uploadID: uploadID, parts: record.parts)
        try verify(&record, key: key, client: client, etag: etag, plan: plan)
    }

    /// After completion: the object's size and ETag against the file's and the parts' MD5s. Only
    /// a server that gives a multipart object the whole file's MD5 as its ETag (rclone) costs a
    /// second read of the file here: hashing every upload twice up front was 40 % of the
    /// upload's CPU (docs/BENCHMARKS.md, "Uploads").
    private func verify(_ record: inout UploadRecord, key: String, client: S3Client, etag: String?, plan: PartPlan) throws(UploadError) {
        let head = try client.head(key: key)
        guard let head, head.size == record.identity.size else {
            throw UploadError(.permanent, "the completed object s3://\(client.bucket)/\(key) has \(head?.size ?? 0) bytes, the file \(record.identity.size)")
        }
        let expected = S3Client.multipartETag(record.parts)
        record.etag = head.etag ?? etag
        if expected != nil && record.etag == expected {
            record.verified = true
        } else if let found = record.etag, Self.isPlainMD5(found) {
            record.verified = found == "\"\(try Self.wholeFileMD5(record, plan: plan))\""
        } else {
            record.verified = false
        }
        record.objectURL = client.objectURL(key)
        record.state = .completed
    }

    /// Whether the object is at `key` already, whole (a completion whose answer was lost, or a
    /// `kill -9` between the completion and the journal): every part was confirmed, and the
    /// object has the file's size and either S3's ETag of those parts or, as some servers
    /// (rclone) give a multipart object, the MD5 of the whole file (read again here, once).
    private func finishedAlready(_ record: inout UploadRecord, key: String, client: S3Client) throws(UploadError) -> Bool {
        let plan = PartPlan(fileSize: record.identity.size, preferred: record.partSize)
        guard record.parts.count == plan.count, let expected = S3Client.multipartETag(record.parts),
              let head = try client.head(key: key), head.size == record.identity.size else { return false }
        if head.etag != expected {
            guard let etag = head.etag, etag == "\"\(try Self.wholeFileMD5(record, plan: plan))\"" else { return false }
        }
        record.etag = head.etag
        record.verified = true
        record.objectURL = client.objectURL(key)
        record.state = .completed
        return true
    }

    /// Whether `etag` is a quoted plain MD5 (32 hex digits), not S3's `"MD5-N"` of a multipart object.
    private static func isPlainMD5(_ etag: String) -> Bool {
        let hex = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return hex.count == 32 && hex.allSatisfy(\.isHexDigit)
    }

    /// The MD5 (hex) of the file of `record`, read part by part; the file must be unchanged.
    private static func wholeFileMD5(_ record: UploadRecord, plan: PartPlan) throws(UploadError) -> String {
        try record.identity.check(record.path)
        let reader = try FilePieceReader(path: record.path)
        let md5 = MD5()
        for number in 1...plan.count {
            let body = try reader.read(plan.range(of: number))
            md5.update(data: body)
        }
        return SigV4Signer.hex(md5.finalize())
    }

    func abandon(_ record: UploadRecord, context: UploadContext) throws(UploadError) {
        guard case .s3(let bucket, _) = record.target, let key = record.key, let uploadID = record.uploadID else { return }
        let credentials = try S3Credentials.resolve(profile: record.s3.profile, environment: context.environment)
        let client = try S3Client(transport: context.transport, bucket: bucket, options: record.s3, credentials: credentials,
                                  environment: context.environment)
        try client.abort(key: key, uploadID: uploadID)
    }
}
