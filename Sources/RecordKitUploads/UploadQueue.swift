import CShims
import Foundation
import Glibc
import Synchronization

/// The uploads the service owns (docs/UPLOADS.md): a persistent queue (``UploadJournal``) and
/// one upload thread, niced and at the lowest best-effort I/O priority, that runs them one at a
/// time in order (parts of one upload in flight together), resumes them after a restart or
/// `kill -9` by asking the server, retries with ``RetryPolicy`` and reports through `onEvent`.
///
/// Threading: the public calls are thread-safe and come from connection threads; `cancel` of a
/// running upload blocks until the upload thread has aborted it (at most ~30 s). The upload
/// thread is the only one doing file reads and waiting on the network; NIO's event loops only
/// move the bytes.
package final class UploadQueue: Sendable {
    /// An upload as listed: its record plus the current rate.
    package struct Entry: Sendable {
        package var record: UploadRecord
        /// Bytes per second over the current run (nil when not running).
        package var bytesPerSecond: Double?

        /// An entry for `record`.
        package init(record: UploadRecord, bytesPerSecond: Double? = nil) {
            self.record = record
            self.bytesPerSecond = bytesPerSecond
        }
    }

    private enum Ask: Sendable { case pause, cancel }

    private struct State: Sendable {
        var records: [String: UploadRecord] = [:]
        var order: [String] = []
        var asks: [String: Ask] = [:]
        var notBefore: [String: Double] = [:]
        var running: String?
        var runStart: (at: Double, bytes: Int64)?
        var lastProgress: [String: Double] = [:]
        var stopped = false
    }

    private let journal: UploadJournal
    private let transport = HTTPTransport()
    private let state = Mutex(State())
    private let wake = NSCondition()
    private let onEvent: @Sendable (UploadEvent) -> Void
    private let environment: [String: String]
    package let policy: RetryPolicy
    package let rate: RateLimiter
    package let maxPartsInFlight: Int

    /// A queue journaled in `directory`; `onEvent` is called on the upload thread or the caller's.
    package init(directory: String = UploadJournal.defaultDirectory(), environment: [String: String] = ProcessInfo.processInfo.environment,
                 maxPartsInFlight: Int = 4, bytesPerSecond: Double? = nil, policy: RetryPolicy = RetryPolicy(),
                 onEvent: @escaping @Sendable (UploadEvent) -> Void) throws(UploadError) {
        self.journal = try UploadJournal(directory: directory)
        self.environment = environment
        self.maxPartsInFlight = maxPartsInFlight
        self.rate = RateLimiter(bytesPerSecond: bytesPerSecond)
        self.policy = policy
        self.onEvent = onEvent
    }

    /// Loads the journal (an upload that was running is queued again: it resumes) and starts the
    /// upload thread.
    package func start() {
        let (records, _) = journal.load()
        state.withLock { s in
            for var r in records.sorted(by: { $0.createdAt < $1.createdAt }) {
                if r.state == .running { r.state = .queued }
                s.records[r.id] = r
                s.order.append(r.id)
            }
        }
        let thread = Thread { [self] in
            // Named from inside: on Linux a name set before start does not reach the kernel
            // (top, /proc/PID/task/*/comm would show "recordd").
            Thread.current.name = "rk-uploads"
            _ = cshim_lower_thread_priority(10, 7)
            runLoop()
        }
        thread.name = "rk-uploads"
        thread.start()
    }

    /// Stops the upload thread after the current piece (the upload resumes at the next start).
    package func stop() {
        state.withLock { s in
            s.stopped = true
            if let r = s.running { s.asks[r] = s.asks[r] ?? .pause }
        }
        wake.broadcast()
    }

    // MARK: Requests

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

    /// Every upload, oldest first.
    package func list() -> [Entry] {
        state.withLock { s in
            s.order.compactMap { id in
                guard let r = s.records[id] else { return nil }
                var rate: Double?
                if s.running == id, let start = s.runStart {
                    let dt = Date().timeIntervalSinceReferenceDate - start.at
                    if dt > 0.5 { rate = Double(r.bytesDone - start.bytes) / dt }
                }
                return Entry(record: r, bytesPerSecond: rate)
            }
        }
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

    private func lookup(_ id: String) throws(UploadError) -> UploadRecord {
        guard let r = state.withLock({ $0.records[id] }) else { throw UploadError(.badTarget, "no upload \(id): see `recordctl uploads`") }
        return r
    }

    private func store(_ record: UploadRecord) throws(UploadError) {
        state.withLock { $0.records[record.id] = record }
        try journal.write(record)
    }

    // MARK: The upload thread

    private func context() -> UploadContext {
        UploadContext(
            transport: transport, environment: environment, maxPartsInFlight: maxPartsInFlight, rate: rate,
            save: { [self] (record: UploadRecord) throws(UploadError) in
                try store(record)
                let now = Date().timeIntervalSinceReferenceDate
                let due = state.withLock { s -> Bool in
                    guard now - (s.lastProgress[record.id] ?? 0) >= 0.5 else { return false }
                    s.lastProgress[record.id] = now
                    return true
                }
                if due { onEvent(UploadEvent(kind: "upload-progress", record: record, message: "\(record.bytesDone) of \(record.identity.size) bytes")) }
            },
            checkpoint: { [self] (id: String) throws(UploadError) in
                switch state.withLock({ $0.asks[id] }) {
                case .pause?: throw UploadError(.paused, "paused")
                case .cancel?: throw UploadError(.cancelled, "cancelled")
                case nil: return
                }
            },
            note: { [self] record, message in onEvent(UploadEvent(kind: "upload-restarted", record: record, message: message)) })
    }

    private func next() -> UploadRecord? {
        state.withLock { s in
            if s.stopped { return nil }
            let now = Date().timeIntervalSinceReferenceDate
            guard let id = s.order.first(where: { s.records[$0]?.state == .queued && (s.notBefore[$0] ?? 0) <= now }) else { return nil }
            s.records[id]?.state = .running
            s.running = id
            s.runStart = (now, s.records[id]?.bytesDone ?? 0)
            return s.records[id]
        }
    }

    private func runLoop() {
        while !state.withLock({ $0.stopped }) {
            guard var record = next() else {
                wake.lock()
                _ = wake.wait(until: Date().addingTimeInterval(0.5))
                wake.unlock()
                continue
            }
            try? journal.write(record)
            let ctx = context()
            do throws(UploadError) {
                try record.target.transfer.run(&record, context: ctx)
                finishCompleted(&record)
            } catch {
                handle(error, &record, ctx)
            }
            state.withLock { s in
                s.running = nil
                s.runStart = nil
                s.asks[record.id] = nil
                s.records[record.id] = record
            }
            try? journal.write(record)
            if record.state == .failed {
                onEvent(UploadEvent(kind: "upload-failed", record: record, message: record.lastError ?? "failed"))
            }
        }
    }

    private func finishCompleted(_ record: inout UploadRecord) {
        record.state = .completed
        record.finishedAt = Self.timestamp()
        record.lastError = nil
        var message = "\(record.path) uploaded to \(record.objectURL ?? record.target.redacted)"
        if record.deleteAfterUpload {
            if record.verified, unlink(record.path) == 0 {
                record.deleted = true
                message += "; local file deleted (size and checksum checked)"
            } else {
                message += "; local file kept: the server's object could not be checked"
            }
        }
        onEvent(UploadEvent(kind: "upload-completed", record: record, message: message))
    }

    private func handle(_ error: UploadError, _ record: inout UploadRecord, _ ctx: UploadContext) {
        switch error.kind {
        case .paused:
            record.state = state.withLock { $0.stopped } ? .queued : .paused
            if record.state == .paused { onEvent(UploadEvent(kind: "upload-paused", record: record, message: "upload \(record.id) paused")) }
        case .cancelled:
            do throws(UploadError) { try record.target.transfer.abandon(record, context: ctx) } catch {
                record.lastError = "cancelled, but removing the unfinished upload on the server failed: \(error.message)"
            }
            record.state = .cancelled
            record.finishedAt = Self.timestamp()
            onEvent(UploadEvent(kind: "upload-cancelled", record: record, message: "upload \(record.id) cancelled"))
        case .transient, .forgotten:
            record.attempts += 1
            record.lastError = error.message
            if record.attempts >= policy.maxAttempts {
                record.state = .failed
                record.lastError = "gave up after \(record.attempts) attempts: \(error.message)"
                record.finishedAt = Self.timestamp()
            } else {
                record.state = .queued
                let delay = policy.delay(after: record.attempts, retryAfter: error.retryAfter)
                state.withLock { $0.notBefore[record.id] = Date().timeIntervalSinceReferenceDate + delay }
                onEvent(UploadEvent(kind: "upload-retrying", record: record,
                                    message: "attempt \(record.attempts) failed (\(error.message)); retrying in \(String(format: "%.1f", delay)) s"))
            }
        case .permanent, .fileChanged, .credentials, .badTarget:
            record.state = .failed
            record.lastError = error.message
            record.finishedAt = Self.timestamp()
        }
    }

    // MARK: Helpers

    static func newID() -> String {
        "u" + String(UInt64(Date().timeIntervalSince1970), radix: 36) + String(UInt32.random(in: 0..<UInt32.max), radix: 36)
    }

    static func timestamp() -> String { ISO8601DateFormatter().string(from: Date()) }
}
