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
/// thread does everything else: file reads, and the network through ``HTTPTransport`` (libcurl,
/// moved by the thread that waits).
///
/// The requests are in `UploadQueue+Requests.swift`, the upload thread in `UploadQueue+Worker.swift`.
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

    /// What a request asked of the running upload (the upload thread acts on it at its next checkpoint).
    enum Ask: Sendable { case pause, cancel }

    /// The queue's records and the upload thread's bookkeeping, under ``state``.
    struct State: Sendable {
        var records: [String: UploadRecord] = [:]
        var order: [String] = []
        var asks: [String: Ask] = [:]
        var notBefore: [String: Double] = [:]
        var running: String?
        var runStart: (at: Double, bytes: Int64)?
        var lastProgress: [String: Double] = [:]
        var stopped = false
    }

    let journal: UploadJournal
    let transport = HTTPTransport()
    let state = Mutex(State())
    let wake = NSCondition()
    let onEvent: @Sendable (UploadEvent) -> Void
    let environment: [String: String]
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

    /// The upload `id`; `badTarget` when there is none.
    func lookup(_ id: String) throws(UploadError) -> UploadRecord {
        guard let r = state.withLock({ $0.records[id] }) else { throw UploadError(.badTarget, "no upload \(id): see `recordctl uploads`") }
        return r
    }

    /// Keeps `record` in memory and in the journal.
    func store(_ record: UploadRecord) throws(UploadError) {
        state.withLock { $0.records[record.id] = record }
        try journal.write(record)
    }

    // MARK: Helpers

    /// A new upload id: "u", the time and randomness, base 36.
    static func newID() -> String {
        "u" + String(UInt64(Date().timeIntervalSince1970), radix: 36) + String(UInt32.random(in: 0..<UInt32.max), radix: 36)
    }

    /// Now, as the journal writes times (ISO 8601).
    static func timestamp() -> String { ISO8601DateFormatter().string(from: Date()) }
}
