import Glibc
import RecordKit
import RecordKitMedia

/// The built-in file handler: writes H.264 video and up to two AAC tracks (app, mic) into an
/// MP4 or Matroska file.
///
/// Crash safety: the file is readable at every moment. MP4 is written fragmented while
/// recording (a fragment per second, flushed to disk), so after a `kill -9` or power loss all
/// but about the last second plays; ``broadcastFinished()`` then rewrites it atomically into a
/// plain MP4 with the index first (`+faststart`), which needs free space for a second copy.
/// Matroska is written directly (one-second clusters, flushed) and finished with cues.
///
/// Streams in the file: video, app audio, mic audio, those of them that the handler asked for
/// and the recording has (``BroadcastContext/streams``). The container header needs every
/// stream's global header, so the first samples are held until each stream has delivered one
/// (a stream silent for 5 s of broadcast time is left out, with a warning).
///
/// Failures end this handler's broadcast through ``BroadcastContext/finishBroadcast(with:)``
/// (for example `writing /path failed: No space left on device`); what was written stays
/// playable. When the recording is discarded the file is deleted.
///
/// Threading: as every handler, called serially by the pipeline; not thread-safe otherwise.
public final class FileUploadHandler: BroadcastSampleHandler {
    private enum Phase { case idle, recording, failed, finished }

    /// The options the handler was created with.
    public let options: FileOutputOptions
    /// The absolute path of the file, resolved once at creation.
    public let outputPath: String
    /// Where the file is written while recording (``outputPath`` unless a working path is set).
    private var writePath: String { options.workingPath ?? outputPath }

    private var phase = Phase.idle
    private var context: BroadcastContext?
    private var gate = StreamGate(expected: [])
    private var muxer: Muxer?
    private var streamIndex: [SampleBufferType: Int] = [:]
    private var createdFile = false
    private var videoStarted = false

    /// Creates a handler that will write to `options.resolvedPath()`.
    public init(options: FileOutputOptions) {
        self.options = options
        self.outputPath = options.resolvedPath()
    }

    /// H.264 with ``FileOutputOptions/video``, plus AAC with ``FileOutputOptions/audio`` for the
    /// app and mic tracks that are included.
    public var input: HandlerInput {
        HandlerInput(video: .encoded(options.video),
                     appAudio: options.includeAppAudio ? .encoded(options.audio) : .none,
                     micAudio: options.includeMicAudio ? .encoded(options.audio) : .none)
    }

    /// Validates the path, creates the (empty) file so that errors surface before recording
    /// starts, and publishes `"path"`. Without ``FileOutputOptions/overwrite`` the file must not
    /// exist (`O_EXCL`); with it, an existing file is truncated here.
    public func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        var resolved = options
        resolved.path = outputPath
        try resolved.validate()
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (options.overwrite ? O_TRUNC : O_EXCL)
        let fd = open(outputPath, flags, 0o644)
        if fd < 0 {
            let error = errno
            let kind: BroadcastError.Kind = .outputFailed
            let hint = error == EEXIST ? "; pass --overwrite to replace it" : ""
            throw BroadcastError(kind, "cannot create \(outputPath): \(SystemError.text(error))\(hint)")
        }
        close(fd)
        createdFile = true
        self.context = context
        var wanted: [SampleBufferType] = [.video]
        if options.includeAppAudio { wanted.append(.audioApp) }
        if options.includeMicAudio { wanted.append(.audioMic) }
        gate = StreamGate(expected: wanted.filter { context.streams.contains($0) })
        phase = .recording
        context.publish(serviceInfo: ["path": outputPath])
    }

    /// Writes one packet (held back until every stream has started, see the type's overview).
    /// Samples of types the file does not carry, or without an encoded packet, are ignored.
    public func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard phase == .recording, gate.expected.contains(type), case .packet = sampleBuffer.payload,
              case .encoded(let format) = sampleBuffer.formatDescription else { return }
        if type == .video, !videoStarted {
            // A file must start with a key frame; earlier packets could not be decoded.
            guard case .packet(let packet) = sampleBuffer.payload, packet.isKeyFrame else { return }
            videoStarted = true
        }
        guard muxer != nil else {
            gate.hold(sampleBuffer, format: format)
            if gate.isComplete || gate.hasWaitedTooLong { openMuxer() }
            return
        }
        write(sampleBuffer)
    }

    /// Finalizes the file, or deletes it when the recording is discarded.
    public func broadcastFinished() {
        defer { phase = .finished; context = nil }
        if context?.isDiscarding ?? false {
            muxer?.abort()
            muxer = nil
            if createdFile {
                unlink(outputPath)
                if options.container == .mp4 { unlink(MP4Finalizer.temporaryPath(for: outputPath)) }
            }
            if let working = options.workingPath { unlink(working) }
            return
        }
        if muxer == nil, phase == .recording, !gate.pending.isEmpty { openMuxer() }
        guard let muxer else {
            if createdFile { unlink(outputPath) }
            if let working = options.workingPath { unlink(working) }
            if phase == .recording {
                fail(BroadcastError(.outputFailed, "no media arrived before the recording ended; \(outputPath) was not written"))
            }
            return
        }
        self.muxer = nil
        do {
            try muxer.finish()
        } catch {
            // After a write error the trailer usually fails too; that error was reported already.
            if phase == .recording {
                fail(BroadcastError(.outputFailed, "finishing \(outputPath) failed: \(error.reason ?? error.message)"))
            }
        }
        if let working = options.workingPath {
            // Service mode: the result moves from the session directory to its destination.
            do { try MP4Finalizer.deliver(working, to: outputPath, remux: options.container == .mp4) } catch { fail(error) }
        } else if options.container == .mp4, phase == .recording {
            do { try MP4Finalizer.finalize(outputPath) } catch { fail(error) }
        }
    }

    // MARK: - Private

    private func openMuxer() {
        let streams = gate.present
        let held = gate.release()
        guard !streams.isEmpty else { return }
        if !gate.missing.isEmpty {
            let names = gate.missing.map(\.rawValue).joined(separator: ", ")
            context?.publish(serviceInfo: ["path": outputPath,
                                           "warning": "no \(names) arrived within \(Int(gate.patience.seconds)) s; the file has no such track"])
        }
        let containerName: String
        let muxerOptions: [String: String]
        switch options.container {
        case .mp4:
            containerName = "mp4"
            // Fragments at each key frame and at least every second, each flushed to disk, so
            // the file always plays up to its last complete fragment. delay_moov writes the
            // index with the first fragment, once every track's first timestamp is known, so
            // it can carry edit lists: B-frame delay and the AAC priming are trimmed exactly
            // (empty_moov instead would stretch the first audio packet and start video late).
            muxerOptions = ["movflags": "+frag_keyframe+delay_moov+default_base_moof",
                            "frag_duration": "1000000", "flush_packets": "1"]
        case .mkv:
            containerName = "matroska"
            muxerOptions = ["cluster_time_limit": "1000", "flush_packets": "1"]
        }
        do {
            muxer = try Muxer(url: writePath, container: containerName, streams: streams.map(\.format), options: muxerOptions)
        } catch {
            fail(BroadcastError(.outputFailed, "opening \(outputPath) failed: \(error.reason ?? error.message)"))
            return
        }
        for (index, stream) in streams.enumerated() { streamIndex[stream.type] = index }
        for sample in held {
            guard phase == .recording else { return }
            write(sample)
        }
    }

    private func write(_ sample: SampleBuffer) {
        guard let muxer, let index = streamIndex[sample.type] else { return }
        do {
            try muxer.write(sample, toStream: index)
        } catch {
            fail(BroadcastError(.outputFailed, "writing \(writePath) failed: \(error.reason ?? error.message)"))
        }
    }

    /// Stops writing and ends this handler's broadcast with `error` (once).
    private func fail(_ error: BroadcastError) {
        guard phase == .recording else { return }
        phase = .failed
        context?.finishBroadcast(with: error)
    }
}
