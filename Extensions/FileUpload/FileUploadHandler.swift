import Dispatch
import Glibc
import RecordKit
import RecordKitMedia
import Synchronization

/// The built-in file handler: writes the recording's encoded video and up to two audio tracks
/// (app, mic) into an MP4 or Matroska file.
///
/// Start: every stream's format is known in ``broadcastStarted(setupInfo:context:)``
/// (``BroadcastContext/formats``), so the container is opened there, and a bad path fails
/// there, before anything records.
///
/// Crash safety: the file is readable at every moment. MP4 is written fragmented while
/// recording (a fragment at each key frame and at least every second) and `fsync`ed at least
/// once a second, so after a `kill -9` or a power cut all but about the last second plays.
/// With a ``BroadcastContext/workingDirectory`` (the service) the file is written there and
/// moved to its destination at the end; ``recover(workingDirectory:)`` does the same for a
/// recording whose recorder died. ``broadcastFinished()`` turns an MP4 into a plain one where it
/// lies, its index appended at the end and no media copied (``MP4Finalizer``), so stopping takes
/// the same time for any length; with ``FileOutputOptions/faststart`` it is remuxed with its
/// index first instead, through a temporary file, `fsync` and `rename`. Matroska is written
/// directly (one-second clusters) and finished with cues.
///
/// Split files (docs/recordctl/split.md): the action `split` (``splitAction``) and the
/// ``FileOutputOptions/split`` policy close the current part at the next key frame and go on
/// into a new one, `name-002.mp4`, …; each closed part is finalized on a queue of its own while
/// the next is written and announced as a `file-part` event with its path.
///
/// Failures end this handler's broadcast through ``BroadcastContext/finishBroadcast(with:)``
/// (for example `writing /path failed: No space left on device`); what was written stays
/// playable. When the recording is discarded every file is deleted. A recording that delivered
/// no media leaves no file behind.
///
/// Threading: as every handler, called serially by the pipeline; not thread-safe otherwise.
/// (`@unchecked Sendable`: the finalizer queue touches only the parts handed to it and
/// ``deliveredParts``, which a lock guards.)
package final class FileUploadHandler: RecoverableBroadcastHandler, BroadcastActionHandler, @unchecked Sendable {
    enum Phase { case idle, recording, failed, finished }

    /// The action that closes the current part at the next key frame and continues into a new
    /// one (`recordctl split`). Its answer, once the closed part is finalized: `"path"` (the
    /// part), `"part"` (its number) and `"next"` (the file now written).
    package static let splitAction = "split"

    /// The options the handler was created with.
    package let options: FileOutputOptions
    /// The absolute path of the file, resolved once at creation (a split recording's parts are
    /// named after it: ``PartNaming``).
    package let outputPath: String

    var phase = Phase.idle
    var context: BroadcastContext?
    var streams: [(SampleBufferType, EncodedFormat)] = []
    /// The part being written.
    var current: FilePart?
    /// The part a split closed, still taking audio from before the cut.
    var closing: FilePart?
    /// Split requests waiting for the next key frame.
    var pendingSplits: [@Sendable (Result<[String: String], BroadcastError>) -> Void] = []
    /// Whether the policy may still split (off after a split could not open its next part).
    var autoSplit = true
    /// Audio that arrived before the video reached its time.
    var audioHold = AudioHold()
    /// Finalizes closed parts, one at a time, off the handler's serial path.
    let finalizer = DispatchQueue(label: "recordkit.file.finalizer", qos: .utility)
    /// Parts finalized so far (deleted again if the recording is discarded).
    let deliveredParts = Mutex<[String]>([])

    /// Creates a handler that will write to `options.resolvedPath()`.
    package init(options: FileOutputOptions) {
        self.options = options
        self.outputPath = options.resolvedPath()
    }

    /// Encoded video with ``FileOutputOptions/video``, plus encoded audio with
    /// ``FileOutputOptions/audio`` for the app and mic tracks that are included. Unless
    /// ``FileOutputOptions/sharesStreamEncode`` is off, the file takes whatever video encode a
    /// stream of the same recording asks for (``HandlerInput/sharesVideoEncode``): one encoder.
    package var input: HandlerInput {
        var input = HandlerInput(video: .encoded(options.video),
                                 appAudio: options.includeAppAudio ? .encoded(options.audio) : .none,
                                 micAudio: options.includeMicAudio ? .encoded(options.audio) : .none)
        input.sharesVideoEncode = options.sharesStreamEncode
        // The camera's own track when the recording has one (`--camera-track`): same codec and
        // settings as the file's video, at the camera's size.
        input.camera = .encoded(options.video)
        input.toleratesEncoderDelay = true  // a file: nobody watches live, so a still screen may be skip-spliced
        return input
    }

    /// `split` (``splitAction``).
    package var supportedActions: Set<String> { [Self.splitAction] }

    /// Checks the destination, opens the container (in the working directory when there is
    /// one) with every stream the context announces, and publishes `"path"`. Throws
    /// ``BroadcastError/Kind/outputFailed`` when the file cannot be created or written, or
    /// exists without ``FileOutputOptions/overwrite``.
    package func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        var resolved = options
        resolved.path = outputPath
        try resolved.validate()
        for type in [SampleBufferType.video, .camera, .audioApp, .audioMic] {
            if let format = context.encodedFormat(of: type) { streams.append((type, format)) }
        }
        guard streams.contains(where: { $0.0 == .video }) else {
            throw BroadcastError(.invalidSetup, "the recording has no encoded video for \(outputPath)")
        }
        self.context = context
        current = try openPart(1, originNs: 0)
        phase = .recording
        context.publish(serviceInfo: ["path": outputPath])
    }

    /// Writes one packet. Samples of types the file does not carry, or without an encoded
    /// packet, are ignored; video starts at its first key frame. A video key frame ends the
    /// part when a split is due; audio from before the cut still goes to the closed part. Audio
    /// waits until the video reached its time (``AudioHold``): only then is it known which part
    /// it belongs to.
    package func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard phase == .recording, let part = current else { return }
        if type == .audioApp || type == .audioMic {
            for sample in audioHold.hold(sampleBuffer, maxLeadNs: audioLeadNs) { place(sample, with: sample.type) }
            return
        }
        if type == .video, case .packet(let packet) = sampleBuffer.payload, packet.isKeyFrame, part.videoFrames > 0,
           !pendingSplits.isEmpty || (autoSplit && options.split.isDue(originNs: part.originNs, ptsNs: sampleBuffer.presentationTime.nanoseconds, bytes: part.bytes)) {
            split(at: sampleBuffer.presentationTime.nanoseconds)
        }
        place(sampleBuffer, with: type)
        if type == .video, case .packet = sampleBuffer.payload {
            for sample in audioHold.videoArrived(ptsNs: sampleBuffer.presentationTime.nanoseconds, maxLeadNs: audioLeadNs) {
                place(sample, with: sample.type)
            }
        }
    }

    /// Writes `sampleBuffer` into the part it belongs to: the current one, or, for audio (and
    /// the camera track) from before the cut, the part a split closed.
    private func place(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard phase == .recording else { return }
        if type != .video, let closing, closing.awaitingAudio.contains(type), let cut = closing.cutNs {
            // Each packet goes, whole, to the part its first sample belongs to: the closed part
            // ends its audio with the packet that spans the cut, the next part starts with the
            // one after, at its own time (an edit list in MP4): every sample once, in place.
            if sampleBuffer.presentationTime.nanoseconds < cut {
                do throws(BroadcastError) { try closing.write(sampleBuffer) } catch { fail(error) }
                return
            }
            closing.awaitingAudio.remove(type)
            if closing.awaitingAudio.isEmpty { handOff(closing) }
        }
        guard let writer = current else { return }
        do throws(BroadcastError) { try writer.write(sampleBuffer) } catch { fail(error) }
    }

    /// How far audio may run ahead of the video before it is written anyway: longer while a
    /// split is asked for or due (``AudioHold``).
    private var audioLeadNs: Int64 {
        guard let part = current else { return AudioHold.maxLeadNs }
        let near = !pendingSplits.isEmpty
            || (autoSplit && options.split.isDue(originNs: part.originNs, ptsNs: max(part.originNs, audioHold.newestAudioNs), bytes: part.bytes))
        return near ? AudioHold.maxLeadNearSplitNs : AudioHold.maxLeadNs
    }

    /// A pause stops the video for now: the audio held for it (``AudioHold``) goes where its time
    /// puts it, so that what was recorded before the pause reaches the file (libavformat's
    /// interleaving otherwise keeps the video waiting for that audio, and a kill -9 while paused
    /// found nothing in the file).
    package func broadcastPaused() {
        for sample in audioHold.releaseAll() { place(sample, with: sample.type) }
    }

    /// Keeps the marker in the part it falls in; the file gets it as a chapter when the part is
    /// finalized (MP4 and Matroska), and the recovery note records it at once.
    package func broadcastAnnotated(_ annotation: BroadcastAnnotation) {
        guard phase == .recording, let current else { return }
        if let closing, let cut = closing.cutNs, annotation.time.nanoseconds < cut {
            closing.chapters.add(annotation)
            refreshNote(for: closing)
        } else {
            current.chapters.add(annotation)
            refreshNote(for: current)
        }
    }

    /// Queues `split`: the part ends at the next video key frame; `completion` gets the
    /// finalized part's path. Other actions fail.
    package func perform(action: String, arguments: [String: String],
                        completion: @escaping @Sendable (Result<[String: String], BroadcastError>) -> Void) {
        guard action == Self.splitAction, phase == .recording else {
            completion(.failure(BroadcastError(.invalidSetup, "the file handler cannot '\(action)' now (it performs '\(Self.splitAction)' while recording)")))
            return
        }
        pendingSplits.append(completion)
    }

    /// Finalizes the file (and moves it to its destination), or deletes it when the recording
    /// is discarded. Waits for the parts a split closed to be finalized first.
    package func broadcastFinished() {
        let workingDirectory = context?.workingDirectory
        let discarding = context?.isDiscarding ?? false
        let part = current
        defer {
            phase = .finished; context = nil; current = nil
            // Delivered or discarded: nothing left to recover (a failed delivery keeps the file).
            if let workingDirectory, let part, FileWriter.size(of: part.writer.path) == 0 {
                RecoveryNote.remove(from: workingDirectory)
            }
        }
        let unanswered = pendingSplits
        pendingSplits = []
        for completion in unanswered {
            completion(.failure(BroadcastError(.invalidSetup, "the recording ended before the next key frame; the file was not split")))
        }
        // No cut can come any more: held audio goes where its time puts it.
        for sample in audioHold.releaseAll() where !discarding { place(sample, with: sample.type) }
        if let closing {
            if discarding { closing.writer.abort(); self.closing = nil } else { handOff(closing) }
        }
        finalizer.sync {}
        guard let part else { return }
        let writer = part.writer
        if discarding {
            writer.abort()
            if workingDirectory == nil, options.container == .mp4 { unlink(MP4Finalizer.temporaryPath(for: writer.path)) }
            for path in deliveredParts.withLock({ $0 }) { unlink(path) }
            return
        }
        guard writer.hasMedia else {
            writer.abort()
            if phase == .recording, part.number == 1 {
                fail(BroadcastError(.outputFailed, "no media arrived before the recording ended; \(outputPath) was not written"))
            }
            return
        }
        let destination = part.number == 1 ? outputPath : PartNaming.path(for: outputPath, part: part.number)
        do throws(BroadcastError) {
            try Self.finalize(part, to: destination, container: options.container, working: workingDirectory != nil, inPlace: phase == .recording,
                              faststart: options.faststart)
        } catch {
            fail(error, always: workingDirectory != nil)
        }
    }

    /// Delivers the files an interrupted recording left in `workingDirectory` to their
    /// destinations (or `name (recovered N).ext` beside one that is taken), as a normal stop
    /// would: finalized in place into a plain MP4 (its index appended; a fragment the crash cut
    /// short keeps its complete samples) and renamed, with the
    /// chapters of the markers made before the interruption. A split recording gives back the
    /// part being written and any part still being finalized. Returns the delivered paths;
    /// nothing when no working file has media (empty, or an MP4 header without a fragment).
    package static func recover(workingDirectory: String) throws(BroadcastError) -> [String] {
        var delivered: [String] = []
        for (name, note) in RecoveryNote.readAll(from: workingDirectory) where FileWriter.size(of: note.workingFile) > 0 {
            // Killed after the header but before the first fragment (the first second of a
            // file encoded with look-ahead): no media, so nothing to deliver.
            if note.container == .mp4, !MP4FragmentScanner.holdsMedia(note.workingFile) { continue }
            let target = RecoveryNote.freeDestination(note.destination)
            let chapters = note.chapters
            try MP4Finalizer.deliver(note.workingFile, to: target, mp4: note.container == .mp4,
                                     chapters: note.container == .mp4 ? chapters.coveringFromZero() : chapters)
            RecoveryNote.remove(from: workingDirectory, name: name)
            delivered.append(target)
        }
        return delivered
    }

    /// Stops writing and ends this handler's broadcast with `error` (once, unless `always`).
    func fail(_ error: BroadcastError, always: Bool = false) {
        guard phase == .recording || always else { return }
        phase = .failed
        context?.finishBroadcast(with: error)
    }
}
