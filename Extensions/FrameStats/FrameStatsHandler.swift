import Foundation
import RecordKitExtensionSDK

/// Writes one JSON line per video frame: its time, mean colour, brightness, and the share of
/// the picture that changed since the previous frame.
///
/// Input (manifest.json): raw frames, 4 bytes per pixel: blue, green, red, unused.
/// Setup keys (see manifest.json): `output`, the file to write, and `step`, the distance in
/// pixels between the points it samples (8: one pixel in 64).
final class FrameStatsHandler: BroadcastSampleHandler {
    private var output: FileHandle?
    private var step = 8
    private var previous: [UInt8] = []

    func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        let path = URL(fileURLWithPath: setupInfo["output"] ?? "frame-stats.jsonl").path
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BroadcastError(.outputFailed, "cannot create \(path)")
        }
        output = file
        step = max(1, Int(setupInfo["step"] ?? "") ?? 8)
        context.publish(serviceInfo: ["path": path])
    }

    func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard case .pixels(let pixels) = sampleBuffer.payload,
              case .video(let format) = sampleBuffer.formatDescription else { return }
        let bytes = pixels.buffer.bytes
        let rowBytes = pixels.bytesPerRow[0]
        var sum = (b: 0, g: 0, r: 0)
        var luma: [UInt8] = []
        luma.reserveCapacity((format.width / step + 1) * (format.height / step + 1))
        for y in stride(from: 0, to: format.height, by: step) {
            for x in stride(from: 0, to: format.width, by: step) {
                let i = y * rowBytes + x * 4
                let b = Int(bytes[i]), g = Int(bytes[i + 1]), r = Int(bytes[i + 2])
                sum.b += b; sum.g += g; sum.r += r
                luma.append(UInt8((54 * r + 183 * g + 19 * b) >> 8))  // BT.709 weights
            }
        }
        let n = Double(luma.count)
        var changed = 0
        if previous.count == luma.count {
            for i in luma.indices where abs(Int(luma[i]) - Int(previous[i])) > 8 { changed += 1 }
        }
        previous = luma
        let meanLuma = Double(luma.reduce(0) { $0 + Int($1) }) / n
        let line = String(format: "{\"t\":%.3f,\"mean\":[%.1f,%.1f,%.1f],\"luma\":%.1f,\"changed\":%.4f}\n",
                          sampleBuffer.presentationTime.seconds, Double(sum.r) / n, Double(sum.g) / n, Double(sum.b) / n,
                          meanLuma, Double(changed) / n)
        output?.write(Data(line.utf8))
    }

    func broadcastFinished() {
        try? output?.close()
        output = nil
    }
}
