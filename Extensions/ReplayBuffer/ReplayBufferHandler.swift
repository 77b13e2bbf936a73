import Dispatch
import Glibc
import RecordKit
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
public final class ReplayBufferHandler: BroadcastActionHandler {
    /// The action that saves a clip: arguments `seconds` (optional, default: the whole buffer),
    /// `path` (optional, absolute; default: a timestamped name in the clip directory) and
    /// `overwrite` (`true` to replace an existing file); result `path`, `seconds` (the clip's
    /// length) and `start` (the clip's first frame in broadcast seconds).
    public static let saveAction = "save-replay"

    /// The options the handler was created with.
    public let options: ReplayBufferOptions

    private let ring: Mutex<ReplayRing>
    private let saveQueue = DispatchQueue(label: "recordkit.replay-buffer.save", qos: .utility)
    private var streams: [(SampleBufferType, EncodedFormat)] = []
    private var context: BroadcastContext?
    private var lastPublishNs: Int64 = Int64.min

    /// Creates a replay buffer.
    public init(options: ReplayBufferOptions) {
        self.options = options
        self.ring = Mutex(ReplayRing(maxDurationNs: Int64(options.seconds * 1e9), maxBytes: options.maxBytes))
    }

    /// The file's input: encoded video (sharing the recording's video encode) and the app and
    /// mic audio tracks encoded.
    public var input: HandlerInput {
        var input = HandlerInput.encodedFile
        input.sharesVideoEncode = true
        return input
    }

    /// `save-replay`.
    public var supportedActions: Set<String> { [Self.saveAction] }

    /// Learns the streams' formats; refuses a recording without encoded video.
    public func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        streams = [SampleBufferType.video, .audioApp, .audioMic].compactMap { type in context.encodedFormat(of: type).map { (type, $0) } }
        guard streams.contains(where: { $0.0 == .video }) else {
            throw BroadcastError(.invalidSetup, "the replay buffer needs encoded video, and the recording has none")
        }
        self.context = context
        context.publish(serviceInfo: ["bufferSeconds": "0.0", "bufferBytes": "0",
                                      "bufferLimitSeconds": String(options.seconds), "bufferLimitBytes": String(options.maxBytes)])
    }

    /// Keeps the packet; publishes the buffer's size about once a second of broadcast time.
    public func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        let (seconds, bytes) = ring.withLock { ring in
            ring.append(sampleBuffer)
            return (ring.seconds, ring.bytes)
        }
        let now = sampleBuffer.presentationTime.nanoseconds
        if type == .video, now - lastPublishNs >= 1_000_000_000 || now < lastPublishNs {
            lastPublishNs = now
            context?.publish(serviceInfo: ["bufferSeconds": String(format2(seconds)), "bufferBytes": String(bytes)])
        }
    }

    /// Performs `save-replay` (see ``saveAction``): the snapshot is taken now, the file is
    /// written on the save queue.
    public func perform(action: String, arguments: [String: String],
                        completion: @escaping @Sendable (Result<[String: String], BroadcastError>) -> Void) {
        guard action == Self.saveAction else {
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
        exportClip(to: path, duration: seconds, overwrite: arguments["overwrite"] == "true", completion: completion)
    }

    /// ReplayKit's `exportClip(to:duration:completionHandler:)`: writes the last `duration`
    /// seconds (nil: the whole buffer) to an MP4 at `path` (nil: a timestamped name in the clip
    /// directory) and calls `completion` on the save queue with `path`, `seconds` and `start`.
    /// Any thread; returns at once.
    public func exportClip(to path: String?, duration: Double?, overwrite: Bool = false,
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
        let snapshot = ring.withLock { $0.snapshot() }
        let streams = self.streams
        let directory = options.directory
        saveQueue.async {
            guard let clip = ReplayClip.make(from: snapshot, seconds: duration) else {
                completion(.failure(BroadcastError(.outputFailed, "the replay buffer holds no video yet; nothing was saved")))
                return
            }
            let target = path ?? ReplayClipWriter.defaultPath(in: directory ?? ReplayClipWriter.videosDirectory())
            do throws(BroadcastError) {
                try ReplayClipWriter.write(clip, streams: streams, to: target)
                completion(.success(["path": target, "seconds": format2(clip.seconds), "start": format2(clip.startSeconds)]))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Waits for saves in progress, then lets go of the buffer.
    public func broadcastFinished() {
        saveQueue.sync {}
        ring.withLock { $0.removeAll() }
        context = nil
    }
}

/// `seconds` with two decimals.
private func format2(_ seconds: Double) -> String {
    let hundredths = Int64((seconds * 100).rounded())
    let fraction = abs(hundredths % 100)
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
