import Foundation
import RecordKit
import RecordKitMedia
import Synchronization

/// A `BroadcastContext` for driving a handler by hand: records what the handler reports.
package final class MediaTestContext: BroadcastContext {
    private struct State {
        package var errors: [BroadcastError] = []
        package var serviceInfo: [String: String] = [:]
        package var discarding = false
    }
    private let state = Mutex(State())
    package let formats: [SampleBufferType: FormatDescription]
    package let workingDirectory: String?

    /// A context announcing `streams` with the formats of ``SyntheticRecording``'s encoders.
    package init(streams: Set<SampleBufferType> = [.video, .audioApp, .audioMic], workingDirectory: String? = nil) {
        let standard = SyntheticRecording.standardFormats
        self.formats = Dictionary(uniqueKeysWithValues: streams.map { ($0, .encoded($0 == .video ? standard.video : standard.audio)) })
        self.workingDirectory = workingDirectory
    }

    package var streams: Set<SampleBufferType> { Set(formats.keys) }

    package func finishBroadcast(with error: BroadcastError) { state.withLock { $0.errors.append(error) } }
    package func publish(serviceInfo: [String: String]) { state.withLock { $0.serviceInfo.merge(serviceInfo) { $1 } } }
    package var isDiscarding: Bool { state.withLock { $0.discarding } }

    /// Errors the handler ended its broadcast with.
    package var errors: [BroadcastError] { state.withLock { $0.errors } }
    /// Everything published, merged.
    package var serviceInfo: [String: String] { state.withLock { $0.serviceInfo } }
    /// Marks the recording as discarded.
    package func discard() { state.withLock { $0.discarding = true } }
}

/// Encoded samples of a synthetic recording: solid-colour BGR0 frames at 30 fps and a sine on
/// each audio track in 1024-frame blocks, encoded by the real encoders, in emission order.
package struct SyntheticRecording {
    package static let width = 640
    package static let height = 480
    package static let frameRate = 30

    /// The formats of the default video encoder (640x480, file settings) and of the AAC
    /// encoder: what a context announces before any sample (encoders know them when opened).
    package static let standardFormats: (video: EncodedFormat, audio: EncodedFormat) = {
        let video = try! VideoEncoder(settings: .fileDefault, inputWidth: width, inputHeight: height, frameRate: frameRate, id: "test-video")
        let audio = try! AudioEncoder(settings: .standard, type: .audioApp, id: "test-app")
        return (video.format, audio.format)
    }()

    /// The samples in the order the encoders emitted them (each type in decode order).
    package var samples: [SampleBuffer] = []
    package var videoFormat: EncodedFormat
    package var audioFormat: EncodedFormat

    /// Encodes `seconds` of pure `rgb` video and 440 Hz (app) / 880 Hz (mic) tones.
    package init(seconds: Double = 3, rgb: (UInt8, UInt8, UInt8) = (255, 0, 0), video: VideoEncoderSettings = .fileDefault,
         width: Int = SyntheticRecording.width, height: Int = SyntheticRecording.height) throws {
        let fps = SyntheticRecording.frameRate
        let videoEncoder = try VideoEncoder(settings: video, inputWidth: width, inputHeight: height, frameRate: fps, id: "test-video")
        let app = try AudioEncoder(settings: .standard, type: .audioApp, id: "test-app")
        let mic = try AudioEncoder(settings: .standard, type: .audioMic, id: "test-mic")
        videoFormat = videoEncoder.format
        audioFormat = app.format
        var out: [SampleBuffer] = []
        let bytesPerRow = width * 4
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = rgb.2; pixels[i + 1] = rgb.1; pixels[i + 2] = rgb.0; pixels[i + 3] = 0
        }
        let frames = Int((seconds * Double(fps)).rounded())
        let totalAudio = Int64(seconds * 48_000)
        var audioFrame: Int64 = 0
        for index in 0..<frames {
            try pixels.withUnsafeBytes { raw in
                try videoEncoder.encode(bgr0: raw.baseAddress!, bytesPerRow: bytesPerRow, width: width, height: height,
                                        pts: Int64(index), emit: { out.append($0) })
            }
            let until = min(totalAudio, Int64(index + 1) * 48_000 / Int64(fps))
            while audioFrame < until {
                let count = Int(min(1024, totalAudio - audioFrame))
                try app.encode(SyntheticRecording.sine(440, start: audioFrame, count: count, type: .audioApp), emit: { out.append($0) })
                try mic.encode(SyntheticRecording.sine(880, start: audioFrame, count: count, type: .audioMic), emit: { out.append($0) })
                audioFrame += Int64(count)
            }
        }
        try videoEncoder.finish { out.append($0) }
        try app.finish { out.append($0) }
        try mic.finish { out.append($0) }
        samples = out
    }

    /// A PCM block of a stereo sine at half scale.
    package static func sine(_ hertz: Double, start: Int64, count: Int, type: SampleBufferType) -> SampleBuffer {
        var values = [Float](repeating: 0, count: count * 2)
        for i in 0..<count {
            let v = Float(0.5 * sin(2 * Double.pi * hertz * Double(start + Int64(i)) / 48_000))
            values[2 * i] = v
            values[2 * i + 1] = v
        }
        let buffer = values.withUnsafeBytes { MediaBuffer(copying: $0) }
        return SampleBuffer(type: type, presentationTime: MediaTime(value: start, timescale: 48_000),
                            duration: MediaTime(value: Int64(count), timescale: 48_000),
                            formatDescription: .audio(.standard),
                            payload: .pcm(PCMData(buffer: buffer, frameCount: count, startFrame: start)))
    }

    /// Samples of `type`.
    package func samples(of type: SampleBufferType) -> [SampleBuffer] { samples.filter { $0.type == type } }
}

/// Runs ffprobe / ffmpeg on a file.
package enum MediaProbe {
    package struct Stream {
        package var codec: String
        package var type: String
        package var width: Int?
        package var height: Int?
        package var pixelFormat: String?
        package var sampleRate: Int?
        package var channels: Int?
        package var packets: Int
        package var colorSpace: String?
        package var colorRange: String?
    }
    package struct Result {
        package var streams: [Stream]
        package var duration: Double
        package var exitCode: Int32
        package var stderr: String
    }

    /// Runs a program; returns (exit code, stdout, stderr).
    package static func run(_ program: String, _ arguments: [String]) throws -> (Int32, Data, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so neither fills up.
        let errData = Mutex(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
            group.leave()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, data, String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }

    /// Streams (with counted packets) and duration of `path`.
    package static func probe(_ path: String) throws -> Result {
        let (code, data, stderr) = try run("/usr/bin/ffprobe", [
            "-v", "error", "-count_packets", "-of", "json",
            "-show_entries", "stream=codec_name,codec_type,width,height,pix_fmt,sample_rate,channels,nb_read_packets,color_space,color_range:format=duration",
            path])
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        let streams = (json["streams"] as? [[String: Any]] ?? []).map { s in
            Stream(codec: s["codec_name"] as? String ?? "", type: s["codec_type"] as? String ?? "",
                   width: s["width"] as? Int, height: s["height"] as? Int, pixelFormat: s["pix_fmt"] as? String,
                   sampleRate: (s["sample_rate"] as? String).flatMap { Int($0) }, channels: s["channels"] as? Int,
                   packets: (s["nb_read_packets"] as? String).flatMap { Int($0) } ?? 0,
                   colorSpace: s["color_space"] as? String, colorRange: s["color_range"] as? String)
        }
        let duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap { Double($0) } ?? 0
        return Result(streams: streams, duration: duration, exitCode: code, stderr: stderr)
    }

    /// The mean RGB of the frame at `seconds`, decoded by ffmpeg.
    package static func meanColour(of path: String, at seconds: Double) throws -> (r: Double, g: Double, b: Double)? {
        let (code, data, _) = try run("/usr/bin/ffmpeg", [
            "-v", "error", "-ss", String(seconds), "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard code == 0, data.count >= 3 else { return nil }
        var sums = (0.0, 0.0, 0.0)
        let pixels = data.count / 3
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            for i in 0..<pixels {
                sums.0 += Double(raw[3 * i]); sums.1 += Double(raw[3 * i + 1]); sums.2 += Double(raw[3 * i + 2])
            }
        }
        return (sums.0 / Double(pixels), sums.1 / Double(pixels), sums.2 / Double(pixels))
    }

    /// The types of the top-level boxes of an ISO BMFF (MP4) file, in order.
    package static func topLevelBoxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            let bytes = [UInt8](data[offset..<offset + 8])
            var size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
            boxes.append(String(decoding: bytes[4..<8], as: UTF8.self))
            if size == 1, offset + 16 <= data.count {
                size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = data.count - offset
            }
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }
}

/// A fresh temporary directory, removed by `remove()`.
package struct MediaScratchDirectory {
    package let path: String

    package init() throws {
        var template = Array((NSTemporaryDirectory() + "/recordkit-media-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw NSError(domain: "MediaTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "mkdtemp failed"])
        }
        path = String(cString: made)
    }

    /// Names of the entries in the directory, hidden ones included.
    package var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    package func remove() { try? FileManager.default.removeItem(atPath: path) }
}
