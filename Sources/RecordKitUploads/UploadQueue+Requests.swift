import Foundation
import Glibc

/// The requests of ``UploadQueue`` from connection threads: queue an upload, check a target,
/// pause, resume and cancel one.
extension UploadQueue {
    /// Queues `request`; throws when the file is not a readable regular file, S3 credentials are
    /// missing, or the same file is already on its way to the same target.
    package func enqueue(_ request: UploadRequest) throws(UploadError) -> UploadRecord {
        let path = (request.path as NSString).standardizingPath
        let identity = try FileIdentity.of(path)
        if case .s3 = request.target {
            _ = try request.s3.resolved(environment: environment)
            _ = try S3Credentials.resolve(profile: request.s3.profile, environment: environment)
        }
        let id = Self.newID()
        var key: String?
        if case .s3(_, let prefix) = request.target {
            let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
            key = ObjectNameTemplate(request.nameTemplate).key(prefix: prefix, host: host, date: Date(), recording: request.recordingId,
                                                               upload: id, file: (path as NSString).lastPathComponent)
        }
        var record = UploadRecord(id: id, path: path, target: request.target, s3: request.s3, key: key, recordingId: request.recordingId,
                                  deleteAfterUpload: request.deleteAfterUpload, identity: identity, state: .queued,
                                  createdAt: Self.timestamp(), partSize: request.partSize ?? PartPlan.defaultPartSize)
        if !request.hookCommands.isEmpty {
            record.hookCommands = request.hookCommands
            record.hookTimeout = request.hookTimeout
        }
        let duplicate: String? = state.withLock { s in
            s.records.values.first { !$0.state.isFinal && $0.path == path && $0.target == record.target && $0.key == key }?.id
        }
        if let duplicate { throw UploadError(.badTarget, "\(path) is already being uploaded there (upload \(duplicate))") }
        try journal.write(record)
        state.withLock { s in
            s.records[id] = record
            s.order.append(id)
        }
        onEvent(UploadEvent(kind: "upload-queued", record: record, message: "\(path) queued for \(record.target.redacted)"))
        wake.broadcast()
        return record
    }

    /// Checks a target before a recording that will upload to it starts (on the caller's thread,
    /// at most ~5 s): the target parses, S3 credentials are found and the bucket exists and
    /// accepts them. Throws for what will not get better by waiting; returns a warning (nil:
    /// all checked) when the server cannot be reached now, since uploads retry later.
    /// Presigned and tus targets are checked for form only: a request would use them up.
    package func preflight(target: UploadTarget, s3 options: S3Options) throws(UploadError) -> String? {
        guard case .s3(let bucket, _) = target else { return nil }
        _ = try options.resolved(environment: environment)
        let credentials = try S3Credentials.resolve(profile: options.profile, environment: environment)
        let client = try S3Client(transport: transport, bucket: bucket, options: options, credentials: credentials, environment: environment)
        do throws(UploadError) {
            try client.checkBucket(within: 5)
        } catch where error.kind == .transient {
            return "the upload target cannot be checked now (\(error.message)); the recording's files will be uploaded when it answers"
        }
        return nil
    }

    /// Pauses `id`: at once when queued, after the parts in flight when running.
    package func pause(_ id: String) throws(UploadError) -> UploadRecord {
        let r = try lookup(id)
        if r.state.isFinal { throw UploadError(.badTarget, "upload \(id) is \(r.state.rawValue): nothing to pause") }
        let now: UploadRecord? = state.withLock { s in
            if s.running == id { s.asks[id] = .pause; return nil }
            s.records[id]?.state = .paused
            return s.records[id]
        }
        if let now { try journal.write(now); onEvent(UploadEvent(kind: "upload-paused", record: now, message: "upload \(id) paused")) }
        return try lookup(id)
    }

    /// Resumes a paused (or failed) upload: queued again, from what the server has.
    package func resume(_ id: String) throws(UploadError) -> UploadRecord {
        let r = try lookup(id)
        guard r.state == .paused || r.state == .failed || (r.state == .running && state.withLock({ $0.asks[id] }) == .pause) else {
            throw UploadError(.badTarget, "upload \(id) is \(r.state.rawValue): only a paused or failed upload resumes")
        }
        let now: UploadRecord? = state.withLock { s in
            if s.asks[id] == .pause { s.asks[id] = nil }
            guard s.records[id]?.state != .running else { return nil }
            s.records[id]?.state = .queued
            s.records[id]?.attempts = 0
            s.notBefore[id] = nil
            return s.records[id]
        }
        if let now { try journal.write(now) }
        wake.broadcast()
        return try lookup(id)
    }

    /// Cancels `id`: removes what the server holds (aborts the multipart upload, terminates the
    /// tus upload) and marks it cancelled. Waits for the upload thread when it is running it.
    package func cancel(_ id: String) throws(UploadError) -> UploadRecord {
        let r = try lookup(id)
        if r.state.isFinal { throw UploadError(.badTarget, "upload \(id) is \(r.state.rawValue): nothing to cancel") }
        let running = state.withLock { s in
            if s.running == id { s.asks[id] = .cancel; return true }
            s.asks[id] = nil
            return false
        }
        if running {
            for _ in 0..<600 {
                if try lookup(id).state != .running { break }
                usleep(50_000)
            }
            return try lookup(id)
        }
        var record = r
        do throws(UploadError) {
            try record.target.transfer.abandon(record, context: context())
        } catch {
            record.lastError = "cancelled, but removing the unfinished upload on the server failed: \(error.message)"
        }
        record.state = .cancelled
        record.finishedAt = Self.timestamp()
        try store(record)
        onEvent(UploadEvent(kind: "upload-cancelled", record: record, message: "upload \(id) cancelled"))
        return record
    }
}
