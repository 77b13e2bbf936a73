// rk-extension-bench: what delivering raw frames to an out-of-process extension costs
// (scripts/benchmark-extension.py runs it; docs/EXTENSIONS.md, "Performance", has the numbers).
//
//   rk-extension-bench --mode lend|copy|inprocess --extension-dir DIR [--duration 30] [--fps 30] [--work touch|none]
//
// Records the whole screen (no audio) for --duration seconds into one handler that reads one byte
// per 4 KiB page of every frame: the fixture extension `touch` in DIR (mode=touch), lent the
// capture memory (lend) or given a copy (copy, RECORDKIT_EXTENSION_COPY=1 must be set by the
// caller), or the same work in-process (inprocess, the baseline). With --work none the extension
// does nothing with the frame: what remains is the cost of the protocol itself. Prints one JSON object.
import CShims
import Foundation
import Glibc
import RecordKit
import RecordKitCapture
import RecordKitExtensions
import RecordKitPipeline
import RecordKitSupport
import Synchronization

/// The in-process baseline: the same touch as the fixture's `mode=touch`.
final class TouchHandler: BroadcastSampleHandler {
    let input = HandlerInput(video: .raw(.bgr0))
    private var checksum: UInt64 = 0
    func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {}
    func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard case .pixels(let p) = sampleBuffer.payload else { return }
        var i = 0
        while i < p.buffer.count { checksum &+= UInt64(p.buffer.bytes[i]); i += 4096 }
    }
    func broadcastFinished() { if checksum == 42 { print("") } }
}

func argument(_ name: String, default value: String) -> String {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return value }
    return args[i + 1]
}

func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds of one memcpy of `bytes`, the reference "one frame copy".
func memcpyCost(bytes: Int) -> Double {
    let a = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096), b = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
    defer { a.deallocate(); b.deallocate() }
    memset(a, 1, bytes); memset(b, 2, bytes)
    let start = cshim_thread_cpu_ns()
    for i in 0..<100 { memcpy(i % 2 == 0 ? b : a, i % 2 == 0 ? a : b, bytes) }
    return Double(cshim_thread_cpu_ns() - start) / 1e9 / 100
}

let mode = argument("--mode", default: "lend")
let duration = Double(argument("--duration", default: "30")) ?? 30
let fps = Int(argument("--fps", default: "30")) ?? 30
let handler: HandlerRegistration
switch mode {
case "inprocess":
    handler = HandlerRegistration(name: "touch", handler: TouchHandler())
case "lend", "copy":
    let catalog = ExtensionCatalog.discover(builtins: [], extensionsDirectories: [argument("--extension-dir", default: ".")])
    let work = argument("--work", default: "touch") == "none" ? "log" : "touch"  // mode=log without a log does nothing
    handler = try catalog.registration(for: ExtensionRequest(name: "touch", setup: ["mode": work]))
default:
    FileHandle.standardError.write(Data("rk-extension-bench: --mode must be lend, copy or inprocess\n".utf8))
    exit(64)
}
let configuration = RecordingConfiguration(screen: ScreenCaptureConfiguration(framesPerSecond: fps), appAudio: nil, micAudio: nil)
let recorder = Recorder(configuration: configuration, handlers: [handler])
let cpuBefore = processCPUSeconds()
let wallBefore = MonotonicClock.nanoseconds()
try recorder.start()
Thread.sleep(forTimeInterval: duration)
let status = recorder.status
let snapshot = recorder.stop().first!
let wall = Double(MonotonicClock.nanoseconds() - wallBefore) / 1e9
let cpu = processCPUSeconds() - cpuBefore
let info = snapshot.serviceInfo
let delivered = Double(snapshot.statistics.delivered)
let frameBytes = status.capture.width * status.capture.height * 4
var result: [String: Any] = [
    "mode": mode, "work": argument("--work", default: "touch"), "seconds": wall, "width": status.capture.width, "height": status.capture.height,
    "framesCaptured": status.capture.framesCaptured, "captureDropped": status.capture.framesDropped,
    "delivered": snapshot.statistics.delivered, "droppedForHandler": snapshot.statistics.droppedVideo,
    "recorderCPUSeconds": cpu, "error": snapshot.error ?? NSNull(),
    "memcpyFrameMs": memcpyCost(bytes: frameBytes) * 1000,
]
if mode != "inprocess" {
    let host = Double(info["hostDeliveryCPUSeconds"] ?? "") ?? .nan
    let ext = Double(info["extensionCPUSeconds"] ?? "") ?? .nan
    result["hostDeliveryCPUSeconds"] = host
    result["extensionCPUSeconds"] = ext
    result["hostDeliveryMsPerFrame"] = host / delivered * 1000
    result["extensionMsPerFrame"] = ext / delivered * 1000
    result["meanRoundTripMs"] = Double(info["meanRoundTripMs"] ?? "") ?? .nan
    result["framesLent"] = Int(info["framesLent"] ?? "") ?? 0
    result["bytesCopied"] = Int(info["bytesCopied"] ?? "") ?? 0
}
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
