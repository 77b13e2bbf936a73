// rk-runner-bench: what handing one encoded packet to a live stream costs the thread that
// releases it (docs/BENCHMARKS.md, "Handing packets to a live stream"; scripts/benchmark-runner.sh runs it).
//
//   rk-runner-bench --url rtmp://127.0.0.1:PORT/live/KEY [--packets 500000] [--consumer rtmp|queue]
//
// Encodes 20 s of a moving 160x120 picture (H.264, 100 kbit/s) and its AAC track (32 kbit/s)
// with the real encoders (small packets: the server records what it gets), then hands --packets
// packets, lap after lap of those 20 s with increasing times, in decode order and from one
// thread, to a `HandlerRunner` that runs the real RTMP handler (`RTMPUploadHandler`, a
// `QueueOwningHandler`) streaming to the RTMP server at --url (the rig's nginx-rtmp). The thread
// never lets more than 200 packets wait in the handler's queue (it sleeps while the sender
// catches up), so nothing is dropped for lack of time. Measured: that thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID) while it hands packets over (the runner's admission and call, the
// handler's enqueue, the throttle's reads); the laps' re-timed packets are made between the
// measured stretches. Prints one JSON object.
//
// `--consumer queue` puts a handler in the RTMP handler's place that only keeps what it gets in a
// queue of its own, under a lock, that a thread of its own empties every millisecond (a live
// stream's sender without FFmpeg, the network and the wake-up per packet), so that the runner's
// share of the cost shows through the noise of a loaded machine; --url is not needed then.
import CShims
import Foundation
import Glibc
import RecordKit
import RecordKitMedia
import RecordKitPipeline
import RTMPUploadExtension
import Synchronization

/// The RTMP sender's queue without its network and without its wake-up: packets go into an
/// array under a lock, and a thread of its own empties it every millisecond (a sender that is
/// busy sending, so the producer never pays a futex wake; what is left is the runner's work
/// and one lock).
final class QueueConsumer: QueueOwningHandler, @unchecked Sendable {
    let input = HandlerInput(video: .encoded(.fileDefault), mixedAudio: .encoded(.standard))
    private struct Queue {
        var waiting: [SampleBuffer] = []
        var finished = false
        var counts = HandlerCounts()
    }
    private let queue = Mutex(Queue())
    private let drained = DispatchSemaphore(value: 0)

    func broadcastStarted(setupInfo: SetupInfo, context: any BroadcastContext) throws {
        Thread { [self] in
            while true {
                let (taken, finished): ([SampleBuffer], Bool) = queue.withLock { q in
                    defer { q.waiting.removeAll(keepingCapacity: true); q.counts.queued = 0 }
                    return (q.waiting, q.finished)
                }
                if finished, taken.isEmpty { break }
                usleep(1000)
            }
            drained.signal()
        }.start()
    }

    func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        queue.withLock { q in
            q.waiting.append(sampleBuffer)
            q.counts.queued = q.waiting.count
            q.counts.queueHighWater = max(q.counts.queueHighWater, q.waiting.count)
        }
    }

    var queueCounts: HandlerCounts { queue.withLock { $0.counts } }

    func broadcastFinished() {
        queue.withLock { $0.finished = true }
        drained.wait()
    }
}

func argument(_ name: String, default value: String) -> String {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return value }
    return args[i + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("rk-runner-bench: \(message)\n".utf8))
    exit(1)
}

func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

let consumerKind = argument("--consumer", default: "rtmp")
let url = argument("--url", default: "")
guard consumerKind == "queue" || !url.isEmpty else { fail("--url rtmp://host:port/app/key is required") }
guard ["rtmp", "queue"].contains(consumerKind) else { fail("--consumer is rtmp or queue") }
let packetCount = Int(argument("--packets", default: "500000")) ?? 500_000

// 20 s of encoded media: a picture whose content moves, and a 440 Hz tone.
let width = 160, height = 120, fps = 30, seconds = 20
let videoSettings = VideoEncoderSettings(preset: "veryfast", rateControl: .cbr(bitsPerSecond: 100_000), keyFrameIntervalSeconds: 2)
let audioSettings = AudioEncoderSettings(bitRate: 32_000)
setenv("RECORDKIT_FFMPEG_LOG", "error", 0)
FFmpegLog.configureFromEnvironment()
var source: [SampleBuffer] = []
let videoFormat: EncodedFormat, audioFormat: EncodedFormat
do {
    let video = try VideoEncoder(settings: videoSettings, inputWidth: width, inputHeight: height, frameRate: fps, id: "bench-video", lowDelay: true)
    let audio = try AudioEncoder(settings: audioSettings, type: .audioMixed, id: "bench-audio")
    videoFormat = video.format
    audioFormat = audio.format
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    var audioFrame: Int64 = 0
    for index in 0..<(fps * seconds) {
        for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i] = UInt8(truncatingIfNeeded: i / 4 + index * 3) }
        try pixels.withUnsafeBytes { raw in
            try video.encode(bgr0: raw.baseAddress!, bytesPerRow: width * 4, width: width, height: height, pts: Int64(index)) { source.append($0) }
        }
        while audioFrame < Int64(index + 1) * 48_000 / Int64(fps) {
            var values = [Float](repeating: 0, count: 2048)
            for i in 0..<1024 { values[2 * i] = Float(0.5 * sin(2 * Double.pi * 440 * Double(audioFrame + Int64(i)) / 48_000)); values[2 * i + 1] = values[2 * i] }
            let block = SampleBuffer(type: .audioMixed, presentationTime: MediaTime(value: audioFrame, timescale: 48_000),
                                     duration: MediaTime(value: 1024, timescale: 48_000), formatDescription: .audio(.standard),
                                     payload: .pcm(PCMData(buffer: values.withUnsafeBytes { MediaBuffer(copying: $0) }, frameCount: 1024, startFrame: audioFrame)))
            try audio.encode(block) { source.append($0) }
            audioFrame += 1024
        }
    }
    try video.finish { source.append($0) }
    try audio.finish { source.append($0) }
} catch {
    fail("encoding the source: \((error as? MediaError)?.message ?? "\(error)")")
}
// Decode order across streams, as the merger releases them.
source.sort { $0.timelineTime.nanoseconds < $1.timelineTime.nanoseconds }
let lapNs = Int64(seconds) * 1_000_000_000
let handler: any QueueOwningHandler = consumerKind == "queue" ? QueueConsumer()
    : RTMPUploadHandler(options: RTMPOutputOptions(url: url, video: videoSettings, audio: audioSettings))
let routes: Set<SampleRoute> = [.video(.encoded(videoSettings)), .audio(.audioMixed, .encoded(audioSettings))]
let runner = HandlerRunner(name: "rtmp", handler: handler, routes: routes, onEnded: { _, error in fail("the stream ended: \(error.message)") })
do { try runner.start(setupInfo: SetupInfo(), formats: [.video: .encoded(videoFormat), .audioMixed: .encoded(audioFormat)]) } catch {
    fail("the RTMP handler refused to start: \(error)")
}

let wallStart = Date()
let processStart = processCPUSeconds()
var threadNs: UInt64 = 0
var handed = 0
var lap: Int64 = 0
while handed < packetCount {
    let packets = source.prefix(packetCount - handed).map { $0.shifted(byNanoseconds: -lap * lapNs) }
    let start = cshim_thread_cpu_ns()
    for (index, packet) in packets.enumerated() {
        if index % 32 == 0 {
            while handler.queueCounts.queued > 200 { usleep(500) }
        }
        runner.enqueue(packet)
    }
    threadNs += cshim_thread_cpu_ns() - start
    handed += packets.count
    lap += 1
}
let wall = Date().timeIntervalSince(wallStart)
let processCPU = processCPUSeconds() - processStart
let done = DispatchSemaphore(value: 0)
runner.finish { done.signal() }
done.wait()
let report = runner.snapshot
let threadSeconds = Double(threadNs) / 1e9
let result: [String: Any] = [
    "packets": handed,
    "consumer": consumerKind,
    "delivered": report.statistics.delivered,
    "droppedVideo": report.statistics.droppedVideo,
    "droppedAudio": report.statistics.droppedAudio,
    "releasingThreadCpuSeconds": threadSeconds,
    "packetsPerCpuSecond": Double(handed) / max(threadSeconds, 1e-9),
    "nanosecondsPerPacket": Double(threadNs) / Double(max(handed, 1)),
    "processCpuSeconds": processCPU,
    "wallSeconds": wall,
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
