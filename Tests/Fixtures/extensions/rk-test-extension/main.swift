// A misbehaving-on-purpose extension for the tests (Tests/RecordKitTests/Extension*.swift):
// one program, its behaviour chosen by the setup key `mode`, its input read from its own
// manifest (so one binary serves manifests that ask for different input).
//
//   mode=log      log every call's entry and exit to `log` (default; PCM with its frame numbers);
//                 `delayMs` sleeps in each call
//   mode=touch    read one byte per 4 KiB page of every frame (the delivery benchmark)
//   mode=crash    dereference a bad pointer at sample `after`   → SIGSEGV
//   mode=hang     sleep forever at sample `after`
//   mode=hungry   allocate and touch 16 MiB blocks from sample `after` on
//   mode=garbage  write bytes that are not a message to the socket at sample `after`
//   mode=exit     exit(3) at sample `after`
//   mode=refuse   throw from broadcastStarted
import Foundation
import Glibc
import RecordKit
import RecordKitExtensionSDK

final class FixtureHandler: BroadcastSampleHandler {
    let input: HandlerInput
    private var mode = "log"
    private var after = 10
    private var delayMicroseconds: useconds_t = 0
    private var log: UnsafeMutablePointer<FILE>?
    private var samples = 0
    private var hoard: [UnsafeMutableRawPointer] = []
    private var checksum: UInt64 = 0

    init(input: HandlerInput) { self.input = input }

    func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        mode = setupInfo["mode"] ?? "log"
        after = Int(setupInfo["after"] ?? "") ?? 10
        delayMicroseconds = useconds_t((Int(setupInfo["delayMs"] ?? "") ?? 0) * 1000)
        if let path = setupInfo["log"], !path.isEmpty { log = fopen(path, "w") }
        write("enter started \(context.streams.map(\.rawValue).sorted().joined(separator: ","))")
        if mode == "refuse" { throw BroadcastError(.invalidSetup, "the fixture refuses to start (mode=refuse)") }
        context.publish(serviceInfo: ["mode": mode])
        write("exit started")
    }

    func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        // PCM adds its frame numbers: `frame START COUNT`.
        var pcm = ""
        if case .pcm(let p) = sampleBuffer.payload { pcm = " frame \(p.startFrame) \(p.frameCount)" }
        write("enter sample \(type.rawValue) \(sampleBuffer.timelineTime.nanoseconds) \(bytes(of: sampleBuffer).count)" + pcm)
        samples += 1
        if samples >= after { misbehave() }
        if mode == "touch" {
            let b = bytes(of: sampleBuffer)
            var i = 0
            while i < b.count { checksum &+= UInt64(b[i]); i += 4096 }
        }
        if delayMicroseconds > 0 { usleep(delayMicroseconds) }
        write("exit sample \(type.rawValue)")
    }

    func broadcastPaused() { write("enter paused"); write("exit paused") }
    func broadcastResumed() { write("enter resumed"); write("exit resumed") }
    func broadcastAnnotated(_ annotation: BroadcastAnnotation) {
        write("enter annotated \(annotation.time.nanoseconds) \(annotation.title)")
        write("exit annotated")
    }

    func broadcastFinished() {
        write("enter finished")
        write("exit finished")
        if let log { fclose(log) }
        log = nil
    }

    private func misbehave() {
        switch mode {
        case "crash":
            UnsafeMutablePointer<Int>(bitPattern: 16)!.pointee = 1
        case "hang":
            while true { sleep(1000) }
        case "hungry":
            let block = 16 << 20
            let p = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 4096)
            memset(p, 0x5A, block)
            hoard.append(p)
        case "garbage" where samples == after:
            let junk: [UInt8] = Array("this is not JSON \u{1}\u{2}\u{3}".utf8)
            _ = junk.withUnsafeBytes { send(3, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        case "exit":
            exit(3)
        default:
            break
        }
    }

    private func bytes(of sample: SampleBuffer) -> UnsafeRawBufferPointer {
        switch sample.payload {
        case .pixels(let p): return p.buffer.bytes
        case .pcm(let p): return p.buffer.bytes
        case .packet(let p): return p.data.bytes
        }
    }

    private func write(_ line: String) {
        guard let log else { return }
        fputs(line + "\n", log)
    }
}

/// The input the manifest in $RECORDKIT_EXTENSION_DIR declares (the recorder checks that the
/// code agrees with the manifest).
func manifestInput() -> HandlerInput {
    let dir = ProcessInfo.processInfo.environment["RECORDKIT_EXTENSION_DIR"] ?? "."
    guard let data = FileManager.default.contents(atPath: dir + "/manifest.json"),
          let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let input = manifest["input"] as? [String: Any] else { return HandlerInput(video: .none) }
    func format(_ key: String) -> String? { (input[key] as? [String: Any])?["format"] as? String }
    func audio(_ key: String) -> AudioInput {
        switch format(key) {
        case "pcm": return .raw
        case "aac": return .encoded(.standard)
        default: return .none
        }
    }
    let video: VideoInput = format("video") == "raw" ? .raw(.bgr0) : format("video") == "h264" ? .encoded(.fileDefault) : .none
    return HandlerInput(video: video, appAudio: audio("audioApp"), micAudio: audio("audioMic"), mixedAudio: audio("audioMixed"))
}

RecordKitExtension.run(FixtureHandler(input: manifestInput()))
