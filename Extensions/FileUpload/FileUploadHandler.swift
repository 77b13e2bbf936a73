import Glibc
import RecordKit
import RecordKitMedia

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
/// recording whose recorder died. ``broadcastFinished()`` rewrites an MP4 into a plain one with
/// its index first (`+faststart`), through a temporary file, `fsync` and `rename`. Matroska is
/// written directly (one-second clusters) and finished with cues.
///
/// Failures end this handler's broadcast through ``BroadcastContext/finishBroadcast(with:)``
/// (for example `writing /path failed: No space left on device`); what was written stays
/// playable. When the recording is discarded every file is deleted. A recording that delivered
/// no media leaves no file behind.
///
/// Threading: as every handler, called serially by the pipeline; not thread-safe otherwise.
public final class FileUploadHandler: RecoverableBroadcastHandler {
    private enum Phase { case idle, recording, failed, finished }

    /// The options the handler was created with.
    public let options: FileOutputOptions
    /// The absolute path of the file, resolved once at creation.
    public let outputPath: String

    private var phase = Phase.idle
    private var context: BroadcastContext?
    private var writer: FileWriter?
    private var chapters = ChapterList()

    /// Creates a handler that will write to `options.resolvedPath()`.
    public init(options: FileOutputOptions) {
        self.options = options
        self.outputPath = options.resolvedPath()
    }

    /// Encoded video with ``FileOutputOptions/video``, plus encoded audio with
    /// ``FileOutputOptions/audio`` for the app and mic tracks that are included. Unless
    /// ``FileOutputOptions/sharesStreamEncode`` is off, the file takes whatever video encode a
    /// stream of the same recording asks for (``HandlerInput/sharesVideoEncode``): one encoder.
    public var input: HandlerInput {
        var input = HandlerInput(video: .encoded(options.video),
                                 appAudio: options.includeAppAudio ? .encoded(options.audio) : .none,
                                 micAudio: options.includeMicAudio ? .encoded(options.audio) : .none)
        input.sharesVideoEncode = options.sharesStreamEncode
        return input
    }

    /// Checks the destination, opens the container (in the working directory when there is
    /// one) with every stream the context announces, and publishes `"path"`. Throws
    /// ``BroadcastError/Kind/outputFailed`` when the file cannot be created or written, or
    /// exists without ``FileOutputOptions/overwrite``.
    public func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        var resolved = options
        resolved.path = outputPath
        try resolved.validate()
        var streams: [(SampleBufferType, EncodedFormat)] = []
        for type in [SampleBufferType.video, .audioApp, .audioMic] {
            if let format = context.encodedFormat(of: type) { streams.append((type, format)) }
        }
        guard streams.contains(where: { $0.0 == .video }) else {
            throw BroadcastError(.invalidSetup, "the recording has no encoded video for \(outputPath)")
        }
        var note: RecoveryNote?
        var path = outputPath
        if let directory = context.workingDirectory {
            path = directory + "/recording." + options.container.fileExtension
            note = RecoveryNote(destination: outputPath, workingFile: path, container: options.container)
            try note?.write(into: directory)
        }
        writer = try FileWriter(path: path, container: options.container, streams: streams, displayPath: outputPath)
        self.context = context
        phase = .recording
        context.publish(serviceInfo: ["path": outputPath])
    }

    /// Writes one packet. Samples of types the file does not carry, or without an encoded
    /// packet, are ignored; video starts at its first key frame.
    public func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard phase == .recording, let writer else { return }
        do throws(BroadcastError) { try writer.write(sampleBuffer) } catch { fail(error) }
        chapters.observe(sampleBuffer)
    }

    /// Keeps the marker; the file gets it as a chapter when it is finalized (MP4 and Matroska).
    public func broadcastAnnotated(_ annotation: BroadcastAnnotation) {
        if phase == .recording { chapters.add(annotation) }
    }

    /// Finalizes the file (and moves it to its destination), or deletes it when the recording
    /// is discarded.
    public func broadcastFinished() {
        let workingDirectory = context?.workingDirectory
        defer {
            phase = .finished; context = nil; writer = nil
            // Delivered or discarded: nothing left to recover (a failed delivery keeps the file).
            if let workingDirectory, FileWriter.size(of: workingDirectory + "/recording." + options.container.fileExtension) == 0 {
                RecoveryNote.remove(from: workingDirectory)
            }
        }
        guard let writer else { return }
        let working = workingDirectory != nil ? writer.path : nil
        if context?.isDiscarding ?? false {
            writer.abort()
            if working == nil, options.container == .mp4 { unlink(MP4Finalizer.temporaryPath(for: outputPath)) }
            return
        }
        guard writer.hasMedia else {
            writer.abort()
            if phase == .recording {
                fail(BroadcastError(.outputFailed, "no media arrived before the recording ended; \(outputPath) was not written"))
            }
            return
        }
        if options.container == .mkv { writer.addChapters(chapters.chapters()) }
        do throws(BroadcastError) { try writer.finish() } catch {
            // After a write error the trailer usually fails too; that error was reported already.
            fail(error)
        }
        if let working {
            do { try MP4Finalizer.deliver(working, to: outputPath, remux: options.container == .mp4,
                                                 chapters: chapters.chapters().coveringFromZero()) } catch { fail(error, always: true) }
        } else if options.container == .mp4, phase == .recording {
            do { try MP4Finalizer.finalize(outputPath, chapters: chapters.chapters().coveringFromZero()) } catch { fail(error) }
        }
    }

    /// Delivers the file an interrupted recording left in `workingDirectory` to its
    /// destination (or `name (recovered N).ext` beside it when that is taken), as a normal stop
    /// would: remuxed into a plain MP4 through a temporary file, `fsync`, `rename`. Returns the
    /// delivered path; nothing when the working file is missing or empty.
    public static func recover(workingDirectory: String) throws(BroadcastError) -> [String] {
        guard let note = RecoveryNote.read(from: workingDirectory), FileWriter.size(of: note.workingFile) > 0 else { return [] }
        let target = RecoveryNote.freeDestination(note.destination)
        try MP4Finalizer.deliver(note.workingFile, to: target, remux: note.container == .mp4)
        return [target]
    }

    /// Stops writing and ends this handler's broadcast with `error` (once, unless `always`).
    private func fail(_ error: BroadcastError, always: Bool = false) {
        guard phase == .recording || always else { return }
        phase = .failed
        context?.finishBroadcast(with: error)
    }
}
