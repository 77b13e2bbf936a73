import Dispatch
import Glibc
import RecordKit
import RecordKitSupport
import Synchronization

/// The built-in replay buffer: keeps the last ``ReplayBufferOptions/seconds`` of the recording's
/// encoded video and every audio track in memory and writes them to an MP4 on request (the
/// action `save-replay`, `recordctl save-replay`), as OBS's replay buffer and ReplayKit's clip
/// buffering do.
///
/// Cost: no encode of its own. It asks for the file's encoded input and shares the video encode
/// of the recording (``HandlerInput/sharesVideoEncode``), so beside a file or a stream it adds
/// no encoder; it only keeps references to packets the encoders made anyway.
///
/// Bounds: whole groups of pictures leave from the front as soon as the rest still covers the
/// duration, or while the bytes exceed ``ReplayBufferOptions/maxBytes``. Paused time is never
/// in the buffer (broadcast time skips it), so a clip across a pause is continuous.
///
/// Saving never stalls the recording: the action takes a snapshot of references under a
/// short lock and the MP4 is written on the handler's own save queue. `"bufferSeconds"` and
/// `"bufferBytes"` are published (and shown by `recordctl status`) about once a second.
///
/// Threading: as every handler, called serially by the pipeline; ``exportClip(to:duration:completion:)``
/// may be called from any thread.
package final class ReplayBufferHandler: BroadcastActionHandler, @unchecked Sendable {
    // Sendable: `streams`, `context` and `lastPublishNs` are written only by the pipeline's
    // serial calls (`streams` once, in broadcastStarted, before any save can be asked for); the
    // buffer and the waiting saves are under `shared`.
    /// The action that saves a clip: arguments `seconds` (optional, default: the whole buffer),
    /// `path` (optional, absolute; default: a timestamped name in the clip directory) and
    /// `overwrite` (`true` to replace an existing file); result `path`, `seconds` (the clip's
    /// length) and `start` (the clip's first frame in broadcast seconds).
    package static let saveAction = "save-replay"
    /// ReplayKit's `stopClipBuffering`: the buffer lets go of what it holds and keeps nothing
    /// more until ``startBufferingAction``; the recording goes on. No arguments; result empty.
    package static let stopBufferingAction = "stop-buffering"
    /// ReplayKit's `startClipBuffering`: buffering goes on again (from the next key frame)
    /// after ``stopBufferingAction``; nothing happens when it is on. No arguments; result empty.
    package static let startBufferingAction = "start-buffering"

    /// The options the handler was created with.
    package let options: ReplayBufferOptions

    /// The buffer and the saves waiting for it to reach their request's time.
    private struct Shared {
        var ring: ReplayRing
        var waiting: [ClipRequest] = []
        /// Markers, oldest first (the last ``maxAnnotations``).
        var annotations: [BroadcastAnnotation] = []
        var nextID = 0
        /// Whether samples are kept (``stopBufferingAction`` turns it off).
        var buffering = true
    }
    private let shared: Mutex<Shared>
    private let saveQueue = DispatchQueue(label: "recordkit.replay-buffer.save", qos: .utility)
    private var streams: [(SampleBufferType, EncodedFormat)] = []
    private var context: BroadcastContext?
    private var lastPublishNs: Int64?

    /// Creates a replay buffer.
    package init(options: ReplayBufferOptions) {
        self.options = options
        self.shared = Mutex(Shared(ring: ReplayRing(maxDurationNs: Int64(options.seconds * 1e9), maxBytes: options.maxBytes)))
    }

    /// The file's input: encoded video (sharing the recording's video encode) and the app and
    /// mic audio tracks encoded. The buffer stores what it gets, as a file does, and a save
    /// waits for the encoded video to reach the moment it was asked for (``exportClip``), so
    /// it tolerates encoder delay: beside a file it leaves the shared encode its look-ahead
    /// and B-frames (``ReplayClip`` cuts a clip only where no B-frame is still missing).
    package var input: HandlerInput {
        var input = HandlerInput.encodedFile
        input.sharesVideoEncode = true
        input.toleratesEncoderDelay = true
        return input
    }

    /// `save-replay`, `start-buffering`, `stop-buffering`.
    package var supportedActions: Set<String> { [Self.saveAction, Self.startBufferingAction, Self.stopBufferingAction] }

    /// Learns the streams' formats; refuses a recording without encoded video.
    package func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        streams = [SampleBufferType.video, .audioApp, .audioMic].compactMap { type in context.encodedFormat(of: type).map { (type, $0) } }
        guard streams.contains(where: { $0.0 == .video }) else {
            throw BroadcastError(.invalidSetup, "the replay buffer needs encoded video, and the recording has none")
        }
        self.context = context
        context.publish(serviceInfo: ["buffering": "on", "bufferSeconds": "0.0", "bufferBytes": "0",
                                      "bufferLimitSeconds": String(options.seconds), "bufferLimitBytes": String(options.maxBytes)])
    }

    /// Keeps the packet; publishes the buffer's size about once a second of broadcast time.
    package func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        let (seconds, bytes, due, snapshot) = shared.withLock { s in
            if s.buffering { s.ring.append(sampleBuffer) }
            var due: [ClipRequest] = []
            if !s.waiting.isEmpty {
                let reached = s.ring.newestVideoEndNs
                due = s.waiting.filter { $0.untilNs <= reached }
                s.waiting.removeAll { $0.untilNs <= reached }
            }
            return (s.ring.seconds, s.ring.bytes, due, due.isEmpty ? [] : s.ring.snapshot())
        }
        for request in due { write(snapshot, for: request) }
        let now = sampleBuffer.presentationTime.nanoseconds
        if type == .video, lastPublishNs.map({ now - $0 >= 1_000_000_000 || now < $0 }) ?? true {
            lastPublishNs = now
            context?.publish(serviceInfo: ["bufferSeconds": String(format2(seconds)), "bufferBytes": String(bytes)])
        }
    }

    /// Keeps the marker: a clip that covers its time gets it as a chapter.
    package func broadcastAnnotated(_ annotation: BroadcastAnnotation) {
        shared.withLock { s in
            s.annotations.append(annotation)
            if s.annotations.count > Self.maxAnnotations { s.annotations.removeFirst(s.annotations.count - Self.maxAnnotations) }
        }
    }

    /// The most markers kept.
    static let maxAnnotations = 1000

    /// Performs `save-replay` (see ``saveAction``): the snapshot is taken now, the file is
    /// written on the save queue.
    package func perform(action: String, arguments: [String: String],
                        completion: @escaping @Sendable (Result<[String: String], BroadcastError>) -> Void) {
        switch action {
        case Self.saveAction: break
        case Self.startBufferingAction, Self.stopBufferingAction:
            let on = action == Self.startBufferingAction
            let waiting: [ClipRequest] = shared.withLock { s in
                s.buffering = on
                guard !on else { return [] }
                s.ring.removeAll()
                defer { s.waiting = [] }
                return s.waiting
            }
            for request in waiting { request.completion(.failure(Self.stoppedError)) }
            context?.publish(serviceInfo: on ? ["buffering": "on"] : ["buffering": "off", "bufferSeconds": "0.00", "bufferBytes": "0"])
            completion(.success([:]))
            return
        default:
            completion(.failure(BroadcastError(.invalidSetup, "the replay buffer does not perform '\(action)'")))
            return
        }
        var seconds: Double?
        if let text = arguments["seconds"], !text.isEmpty {
            guard let value = Double(text), value > 0 else {
                completion(.failure(BroadcastError(.invalidSetup, "seconds must be a positive number, got '\(text)'")))
                return
            }
            seconds = value
        }
        let path = arguments["path"].flatMap { $0.isEmpty ? nil : $0 }
        let until = arguments[BroadcastActionArguments.requestTime].flatMap { Int64($0) }
        exportClip(to: path, duration: seconds, overwrite: arguments["overwrite"] == "true", until: until, completion: completion)
    }

    /// ReplayKit's `exportClip(to:duration:completionHandler:)`: writes the last `duration`
    /// seconds (nil: the whole buffer) to an MP4 at `path` (nil: a timestamped name in the clip
    /// directory) and calls `completion` on the save queue with `path`, `seconds` and `start`.
    /// With `until` (broadcast nanoseconds, the moment of the request), the clip is taken once
    /// the encoded video reached that moment (the encoder's look-ahead holds about half a
    /// second of frames), or after ``maxWaitSeconds`` (a pause). Any thread; returns at once.
    package func exportClip(to path: String?, duration: Double?, overwrite: Bool = false, until: Int64? = nil,
                           completion: @escaping @Sendable (Result<[String: String], BroadcastError>) -> Void) {
        if let path {
            guard path.hasPrefix("/") else {
                completion(.failure(BroadcastError(.invalidSetup, "the clip's path must be absolute, got '\(path)'")))
                return
            }
            var info = stat()
            if !overwrite, stat(path, &info) == 0 {
                completion(.failure(BroadcastError(.outputFailed, "\(path) already exists; choose another name or pass --overwrite")))
                return
            }
        }
        let (id, snapshot, stopped): (Int?, [SampleBuffer], Bool) = shared.withLock { s in
            if !s.buffering { return (nil, [], true) }
            if let until, s.ring.newestVideoEndNs < until {
                s.nextID += 1
                s.waiting.append(ClipRequest(id: s.nextID, untilNs: until, path: path, duration: duration, completion: completion))
                return (s.nextID, [], false)
            }
            return (nil, s.ring.snapshot(), false)
        }
        if stopped {
            completion(.failure(Self.stoppedError))
            return
        }
        guard let id else {
            write(snapshot, for: ClipRequest(id: 0, untilNs: 0, path: path, duration: duration, completion: completion))
            return
        }
        saveQueue.asyncAfter(deadline: .now() + Self.maxWaitSeconds) { [self] in
            let (late, snapshot): (ClipRequest?, [SampleBuffer]) = shared.withLock { s in
                guard let index = s.waiting.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                return (s.waiting.remove(at: index), s.ring.snapshot())
            }
            if let late { write(snapshot, for: late) }
        }
    }

    /// The answer to a save while buffering is stopped.
    static let stoppedError = BroadcastError(.invalidSetup, "clip buffering is stopped; start it again (startClipBuffering, the action 'start-buffering') first")

    /// How long a save waits for the encoded video to reach the moment of its request.
    package static let maxWaitSeconds = 1.5

    /// Writes the clip `request` asks for from `snapshot`, on the save queue.
    private func write(_ snapshot: [SampleBuffer], for request: ClipRequest) {
        let streams = self.streams
        let directory = options.directory
        let (path, duration, completion) = (request.path, request.duration, request.completion)
        let annotations = shared.withLock { $0.annotations }
        saveQueue.async {
            guard let clip = ReplayClip.make(from: snapshot, seconds: duration, annotations: annotations) else {
                completion(.failure(BroadcastError(.outputFailed, "the replay buffer holds no video yet; nothing was saved")))
                return
            }
            let folder = directory ?? VideosDirectory.path()
            if path == nil { mkdir(folder, 0o755) }  // the videos directory may not exist yet
            let target = path ?? ReplayClipWriter.defaultPath(in: folder)
            do throws(BroadcastError) {
                try ReplayClipWriter.write(clip, streams: streams, to: target)
                completion(.success(["path": target, "seconds": format2(clip.seconds), "start": format2(clip.startSeconds)]))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Waits for saves in progress, then lets go of the buffer.
    package func broadcastFinished() {
        let waiting = shared.withLock { s in
            defer { s.waiting = [] }
            return (s.waiting, s.ring.snapshot())
        }
        for request in waiting.0 { write(waiting.1, for: request) }
        saveQueue.sync {}
        shared.withLock { $0.ring.removeAll() }
        context = nil
    }
}

/// `seconds` with two decimals.
private func format2(_ seconds: Double) -> String {
    let hundredths = Int64((seconds * 100).rounded())
    let fraction = abs(hundredths % 100)
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

/// A save waiting for the buffer to reach the moment of its request.
private struct ClipRequest: Sendable {
    var id: Int
    var untilNs: Int64
    var path: String?
    var duration: Double?
    var completion: @Sendable (Result<[String: String], BroadcastError>) -> Void
}
