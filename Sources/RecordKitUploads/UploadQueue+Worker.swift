import Foundation
import Glibc

/// ``UploadQueue``'s upload thread: takes the next queued upload whose retry time has come,
/// runs its transfer, and records how it ended (completed, paused, cancelled, retried later or
/// failed), one upload at a time.
extension UploadQueue {
    /// What a transfer needs from the queue: the transport, limits, and callbacks that save
    /// progress, check for a pause or cancel, and pass on notes.
    func context() -> UploadContext {
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

    /// The upload thread's loop, until ``stop()``.
    func runLoop() {
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

}
