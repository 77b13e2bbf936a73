import Dispatch
import Foundation
import RecordKitUploads

extension RecordingService {
    /// Starts the upload queue (its journal under `$XDG_STATE_HOME/recordkit/uploads`): uploads
    /// an earlier service left resume now. Called once by recordd, after the socket is bound, so
    /// only the one service process of the user runs them. Failing to start is logged, never fatal.
    /// `hooks`/`hookTimeout`: the config file's `[hooks] on-saved`, run (kind `upload`) when an
    /// upload that belongs to no recording of this service's life completes.
    package func startUploads(hooks: [String] = [], hookTimeout: Double? = nil, log: @escaping @Sendable (String) -> Void) {
        uploadHooks.withLock { $0[""] = makeUploadHooks(commands: hooks, timeout: hookTimeout, recordingId: "") }
        let env = ProcessInfo.processInfo.environment
        let attempts = env["RECORDKIT_UPLOAD_ATTEMPTS"].flatMap(Int.init).map { max(1, $0) } ?? RetryPolicy().maxAttempts
        let base = env["RECORDKIT_UPLOAD_RETRY_BASE"].flatMap(Double.init).map { max(0.05, $0) } ?? RetryPolicy().base
        let inFlight = env["RECORDKIT_UPLOAD_PARTS_IN_FLIGHT"].flatMap(Int.init).map { min(16, max(1, $0)) } ?? 4
        let rate = env["RECORDKIT_UPLOAD_RATE"].flatMap(RateLimiter.parse)
        do throws(UploadError) {
            let queue = try UploadQueue(maxPartsInFlight: inFlight, bytesPerSecond: rate,
                                        policy: RetryPolicy(base: base, maxAttempts: attempts)) { [weak self] event in
                self?.publishUpload(event)
                if event.kind == "upload-failed" || event.kind == "upload-completed" || event.kind == "upload-restarted" {
                    log("\(event.kind) \(event.record.id): \(event.message)")
                }
            }
            uploadQueue.withLock { $0 = queue }
            lifecycle.setFileSink { [weak self] active, paths, wait in self?.uploadOutputs(of: active, paths: paths, wait: wait) }
            queue.start()
        } catch {
            log("uploads unavailable: \(error.message)")
        }
    }

    /// Stops the upload thread after its current piece (SIGTERM): the uploads resume at the next start.
    package func stopUploads() { uploadQueue.withLock { $0 }?.stop() }

    /// `upload`, `uploads`, `upload-pause|resume|cancel`.
    func handleUpload(_ command: ControlCommand, _ options: CommandOptions) throws(ControlError) -> ControlResult {
        guard let queue = uploadQueue.withLock({ $0 }) else {
            throw ControlError(.unavailable, "this service runs no upload queue (see its log)")
        }
        var r = ControlResult()
        if command == .upload, let upload = options.upload, (options.files ?? []).isEmpty {
            // No file: check the target only (`record --upload`, before it records).
            var args = StartArguments()
            args.upload = upload
            let warnings = try checkUploadTargets(of: args)
            if !warnings.isEmpty { r.warnings = warnings }
            return r
        }
        do throws(UploadError) {
            switch command {
            case .upload:
                guard let upload = options.upload else { throw UploadError(.badTarget, "no target: add --to TARGET") }
                let files = options.files ?? []
                guard !files.isEmpty else { throw UploadError(.badTarget, "no file to upload") }
                if let text = upload.rate {
                    guard let rate = RateLimiter.parse(text) else { throw UploadError(.badTarget, "--upload-rate '\(text)' is not a rate like 20M") }
                    queue.rate.set(bytesPerSecond: rate)
                }
                var requests: [UploadRequest] = []
                for path in files { requests.append(try Self.request(upload, path: path, recordingId: nil)) }
                var queued: [UploadStatus] = []
                for request in requests { queued.append(Self.status(UploadQueue.Entry(record: try queue.enqueue(request), bytesPerSecond: nil))) }
                r.uploads = queued
            case .uploads:
                r.uploads = queue.list().map(Self.status)
            case .uploadPause, .uploadResume, .uploadCancel:
                guard let id = options.uploadId else { throw UploadError(.badTarget, "no upload id: see `recordctl uploads`") }
                let record: UploadRecord
                switch command {
                case .uploadPause: record = try queue.pause(id)
                case .uploadResume: record = try queue.resume(id)
                default: record = try queue.cancel(id)
                }
                r.uploads = [Self.status(UploadQueue.Entry(record: record, bytesPerSecond: nil))]
            default:
                break
            }
        } catch {
            throw Self.controlError(error)
        }
        return r
    }

    /// `start --upload`: queues each finished file of `active` (the recording at stop, each
    /// split part as it closes); a file already queued is skipped; a failure is an event, never
    /// a failure of the recording.
    /// `wait`: queue before returning (at stop, so `uploads wait` right after sees every file);
    /// else off the recorder's event thread (enqueueing reads and journals). Either way in order.
    func uploadOutputs(of active: ActiveRecording, paths: [String], wait: Bool = false) {
        guard let upload = active.upload, let queue = uploadQueue.withLock({ $0 }) else { return }
        keepHooks(of: active)
        if wait {
            Self.enqueueing.sync { enqueue(paths, of: active, upload: upload, queue: queue) }
        } else {
            Self.enqueueing.async { [self] in enqueue(paths, of: active, upload: upload, queue: queue) }
        }
    }

    private static let enqueueing = DispatchQueue(label: "recordd.upload-enqueue", qos: .utility)

    private func enqueue(_ paths: [String], of active: ActiveRecording, upload: UploadOptions, queue: UploadQueue) {
        let known = Set(queue.list().filter { $0.record.recordingId == active.id }.map(\.record.path))
        for path in paths where path.hasPrefix("/") && !known.contains(path) && FileManager.default.fileExists(atPath: path) {
            do throws(UploadError) {
                _ = try queue.enqueue(try Self.request(upload, path: path, recordingId: active.id, hooks: active.hooks))
            } catch {
                publish(ServiceEvent(kind: "upload-failed", recordingId: active.id, reason: "cannot upload \(path): \(error.message)",
                                     at: Self.now(), path: path))
            }
        }
    }

    /// Queues a saved replay clip of `active` (`save-replay --upload`, config `[uploads] replays`);
    /// nil when no upload was asked for.
    func uploadClip(_ path: String?, options: UploadOptions?, of active: ActiveRecording) throws(ControlError) -> [UploadStatus]? {
        guard let options, let path else { return nil }
        guard let queue = uploadQueue.withLock({ $0 }) else { throw ControlError(.unavailable, "this service runs no upload queue") }
        keepHooks(of: active)
        do throws(UploadError) {
            let record = try queue.enqueue(try Self.request(options, path: path, recordingId: active.id, hooks: active.hooks))
            return [Self.status(UploadQueue.Entry(record: record, bytesPerSecond: nil))]
        } catch {
            throw Self.controlError(error)
        }
    }

    /// `start`: checks the targets of `args` before anything records (``UploadQueue/preflight``):
    /// a malformed target, missing credentials, a missing bucket or refused credentials are
    /// errors; a server that cannot be reached now is a warning (returned).
    func checkUploadTargets(of args: StartArguments) throws(ControlError) -> [String] {
        let targets = [args.upload, args.uploadReplays].compactMap { $0 }
        guard !targets.isEmpty else { return [] }
        guard let queue = uploadQueue.withLock({ $0 }) else {
            throw ControlError(.unavailable, "this service runs no upload queue (see its log); start without --upload")
        }
        var warnings: [String] = []
        for options in targets {
            try Self.validate(options)
            do throws(UploadError) {
                if let warning = try queue.preflight(target: try UploadTarget.parse(options.target), s3: Self.s3Options(options)) {
                    warnings.append(warning)
                }
            } catch {
                var e = Self.controlError(error)
                e.message = "cannot upload to \(UploadTarget.redact(options.target)): \(e.message); nothing was recorded"
                throw e
            }
        }
        return warnings
    }

    /// Checks an upload target and its options (form only) before a recording starts.
    static func validate(_ options: UploadOptions) throws(ControlError) {
        do throws(UploadError) {
            let target = try UploadTarget.parse(options.target)
            if case .s3 = target { _ = try s3Options(options).resolved() }
        } catch {
            throw controlError(error)
        }
    }

    private func publishUpload(_ event: UploadEvent) {
        let status = Self.status(UploadQueue.Entry(record: event.record, bytesPerSecond: nil))
        var e = ServiceEvent(kind: event.kind, recordingId: event.record.recordingId, state: event.record.state.rawValue,
                             reason: event.message, at: Self.now(), path: event.record.path)
        e.upload = status
        publish(e)
        if event.kind == "upload-completed" { runUploadHooks(event.record) }
    }

    /// The recording's hooks run again for its uploads (they may complete after it ended).
    private func keepHooks(of active: ActiveRecording) {
        guard !active.hooks.isEmpty else { return }
        uploadHooks.withLock { $0[active.id] = active.hooks }
    }

    /// Runs the `on-saved` hooks (kind `upload`) of the recording `record` belongs to (kept in
    /// the upload's journal, so they run after a restart too), else the config file's; forgets a
    /// recording's hooks once none of its uploads is left to run.
    private func runUploadHooks(_ record: UploadRecord) {
        let recordingId = record.recordingId ?? ""
        let pending = uploadQueue.withLock { $0 }?.list().contains { $0.record.recordingId == record.recordingId && !$0.record.state.isFinal } ?? false
        let hooks = uploadHooks.withLock { all -> SavedFileHooks? in
            if !recordingId.isEmpty, all[recordingId] == nil, let commands = record.hookCommands, !commands.isEmpty {
                all[recordingId] = makeUploadHooks(commands: commands, timeout: record.hookTimeout, recordingId: recordingId)
            }
            let h = all[recordingId] ?? all[""]
            if !recordingId.isEmpty, !pending, lifecycle.snapshot.active?.id != recordingId { all[recordingId] = nil }
            return h
        }
        var environment = ["RECORDKIT_UPLOAD_ID": record.id]
        if let url = record.objectURL { environment["RECORDKIT_UPLOAD_URL"] = url }
        if let key = record.key { environment["RECORDKIT_UPLOAD_KEY"] = key }
        hooks?.saved(path: record.path, kind: .upload, environment: environment)
    }

    /// Hooks for uploads outside a recording; each one's end is an event, as for a recording's.
    private func makeUploadHooks(commands: [String], timeout: Double?, recordingId: String) -> SavedFileHooks {
        SavedFileHooks(commands: commands, timeout: timeout, recordingId: recordingId) { [weak self] report in
            self?.publish(ServiceEvent(kind: report.outcome.succeeded ? "hook-finished" : "hook-failed", recordingId: nil,
                                       reason: "on-saved hook for \(report.kind.rawValue) \(report.path) \(report.outcome.summary)",
                                       at: Self.now(), path: report.path))
        }
    }

    static func s3Options(_ o: UploadOptions) -> S3Options {
        S3Options(endpoint: o.endpoint, region: o.region, addressing: o.addressing, profile: o.profile)
    }

    private static func request(_ o: UploadOptions, path: String, recordingId: String?,
                                hooks: SavedFileHooks? = nil) throws(UploadError) -> UploadRequest {
        guard path.hasPrefix("/") else { throw UploadError(.badTarget, "'\(path)' is not an absolute path") }
        if let size = o.partSizeMiB, !(5...5120).contains(size) { throw UploadError(.badTarget, "the part size must be 5 to 5120 MiB, got \(size)") }
        return UploadRequest(path: path, target: try UploadTarget.parse(o.target), s3: s3Options(o), recordingId: recordingId,
                             deleteAfterUpload: o.deleteAfterUpload ?? false, nameTemplate: o.nameTemplate,
                             partSize: o.partSizeMiB.map { Int64($0) * PartPlan.mib },
                             hookCommands: hooks?.commands ?? [], hookTimeout: hooks?.timeout)
    }

    static func status(_ entry: UploadQueue.Entry) -> UploadStatus {
        let r = entry.record
        let left = entry.bytesPerSecond.flatMap { $0 > 0 ? Double(r.identity.size - r.bytesDone) / $0 : nil }
        return UploadStatus(id: r.id, path: r.path, target: r.target.redacted, key: r.key, state: r.state.rawValue, bytesDone: r.bytesDone,
                            bytesTotal: r.identity.size, bytesPerSecond: entry.bytesPerSecond, secondsLeft: left, attempts: r.attempts,
                            restarts: r.restarts, lastError: r.lastError, objectURL: r.objectURL, etag: r.etag, verified: r.verified,
                            deleted: r.deleted, recordingId: r.recordingId, createdAt: r.createdAt, finishedAt: r.finishedAt)
    }

    /// The control error for an upload error (exit codes: docs/UPLOADS.md, "Errors").
    static func controlError(_ e: UploadError) -> ControlError {
        switch e.kind {
        case .badTarget: return ControlError(.badArgument, e.message)
        case .fileChanged: return ControlError(.badArgument, e.message)
        case .credentials: return ControlError(.permissionDenied, e.message)
        case .transient: return ControlError(.unavailable, e.message)
        case .permanent, .forgotten, .cancelled, .paused: return ControlError(.failed, e.message)
        }
    }
}
