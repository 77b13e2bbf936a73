import Foundation

/// One stream as ffprobe sees it.
struct ProbedStream: Sendable, CustomStringConvertible {
    var index: Int
    var codecType: String  // "video", "audio", ...
    var codecName: String
    var width: Int?
    var height: Int?
    var pixFmt: String?
    /// How long the stream lasts, in seconds: `duration`, else the Matroska `DURATION` tag
    /// (which is the stream's end time) minus the stream's start time. Matroska cannot store
    /// the negative start of AAC's encoder priming (21 ms), so it shifts every track by it.
    var duration: Double?
    /// Frames (video) or audio frames, counted by decoding (`-count_frames`) when asked,
    /// else the container's `nb_frames`.
    var frameCount: Int?
    var sampleRate: Int?
    var channels: Int?
    var averageFrameRate: Double?
    var tags: [String: String]

    var description: String {
        var parts = ["#\(index) \(codecType) \(codecName)"]
        if let width, let height { parts.append("\(width)x\(height)") }
        if let pixFmt { parts.append(pixFmt) }
        if let sampleRate { parts.append("\(sampleRate) Hz") }
        if let channels { parts.append("\(channels) ch") }
        if let duration { parts.append(String(format: "%.3f s", duration)) }
        if let frameCount { parts.append("\(frameCount) frames") }
        if !tags.isEmpty { parts.append("tags \(tags)") }
        return parts.joined(separator: " ")
    }
}

struct ProbeResult: Sendable, CustomStringConvertible {
    var formatName: String
    var formatDuration: Double?
    var streams: [ProbedStream]

    var video: [ProbedStream] { streams.filter { $0.codecType == "video" } }
    var audio: [ProbedStream] { streams.filter { $0.codecType == "audio" } }

    var description: String {
        "\(formatName) \(formatDuration.map { String(format: "%.3f s", $0) } ?? "?")\n  "
            + streams.map(\.description).joined(separator: "\n  ")
    }

    /// The app-audio and mic-audio tracks: by a title/handler tag mentioning "app"/"mic" if the
    /// recorder writes one, else by order (app first, as the recorder writes them).
    var appAndMicAudio: (app: ProbedStream, mic: ProbedStream)? {
        let a = audio
        guard a.count >= 2 else { return nil }
        func label(_ s: ProbedStream) -> String {
            ((s.tags["title"] ?? "") + " " + (s.tags["handler_name"] ?? "")).lowercased()
        }
        let app = a.first { label($0).contains("app") }
        let mic = a.first { label($0).contains("mic") }
        if let app, let mic, app.index != mic.index { return (app, mic) }
        return (a[0], a[1])
    }
}

/// Packet timing of one stream, from `ffprobe -show_packets`.
struct PacketSpan: Sendable {
    var count: Int
    var first: Double
    var end: Double  // last packet's pts + duration
    var seconds: Double { count == 0 ? 0 : end - first }
}

enum FFprobe {
    /// Probes `path` (JSON output). With `countFrames`, frame counts come from decoding every frame.
    static func probe(_ path: String, countFrames: Bool = true, timeout: TimeInterval = 120) throws -> ProbeResult {
        var args = ["-v", "error", "-of", "json",
                    "-show_entries",
                    "format=format_name,duration:stream=index,codec_type,codec_name,width,height,pix_fmt,duration,start_time,nb_frames,nb_read_frames,sample_rate,channels,avg_frame_rate:stream_tags"]
        if countFrames { args.append("-count_frames") }
        args.append(path)
        let data = try ProcessRunner.output("ffprobe", args, timeout: timeout)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ProcessRunnerError(description: "ffprobe: unexpected output for \(path)")
        }
        let format = root["format"] as? [String: Any] ?? [:]
        let streams = (root["streams"] as? [[String: Any]] ?? []).map { s -> ProbedStream in
            let tags = (s["tags"] as? [String: Any] ?? [:]).reduce(into: [String: String]()) {
                $0[$1.key] = "\($1.value)"
            }
            let tagDuration = tags.first { $0.key.uppercased() == "DURATION" }.flatMap { parseClock($0.value) }
            return ProbedStream(
                index: int(s["index"]) ?? -1,
                codecType: s["codec_type"] as? String ?? "",
                codecName: s["codec_name"] as? String ?? "",
                width: int(s["width"]), height: int(s["height"]),
                pixFmt: s["pix_fmt"] as? String,
                duration: double(s["duration"]) ?? tagDuration.map { $0 - (double(s["start_time"]) ?? 0) },
                frameCount: int(s["nb_read_frames"]) ?? int(s["nb_frames"]),
                sampleRate: int(s["sample_rate"]), channels: int(s["channels"]),
                averageFrameRate: rational(s["avg_frame_rate"]),
                tags: tags)
        }
        return ProbeResult(formatName: format["format_name"] as? String ?? "",
                           formatDuration: double(format["duration"]), streams: streams)
    }

    /// First and last packet times of stream `index` (an absolute stream index).
    static func packetSpan(_ path: String, streamIndex index: Int, timeout: TimeInterval = 120) throws -> PacketSpan {
        let data = try ProcessRunner.output("ffprobe", [
            "-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=pts_time,duration_time",
            "-of", "csv=p=0", path,
        ], timeout: timeout)
        var first = Double.infinity, end = -Double.infinity, count = 0
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let pts = f.first.flatMap({ Double($0) }) else { continue }
            let dur = f.count > 1 ? Double(f[1]) ?? 0 : 0
            first = min(first, pts)
            end = max(end, pts + dur)
            count += 1
        }
        return PacketSpan(count: count, first: count == 0 ? 0 : first, end: count == 0 ? 0 : end)
    }

    private static func int(_ v: Any?) -> Int? {
        if let i = v as? Int { return i }
        if let n = v as? NSNumber { return n.intValue }
        if let s = v as? String { return Int(s) }
        return nil
    }

    private static func double(_ v: Any?) -> Double? {
        if let d = v as? Double { return d }
        if let n = v as? NSNumber { return n.doubleValue }
        if let s = v as? String { return Double(s) }
        return nil
    }

    private static func rational(_ v: Any?) -> Double? {
        guard let s = v as? String else { return nil }
        let p = s.split(separator: "/")
        guard p.count == 2, let n = Double(p[0]), let d = Double(p[1]), d != 0 else { return Double(s) }
        return n / d
    }

    /// "00:00:02.000000000" -> 2.0
    static func parseClock(_ s: String) -> Double? {
        let p = s.split(separator: ":")
        guard p.count == 3, let h = Double(p[0]), let m = Double(p[1]), let sec = Double(p[2]) else { return nil }
        return h * 3600 + m * 60 + sec
    }
}

extension FFprobe {
    /// Presentation times (seconds) of every packet of stream `index`, in file order.
    static func packetTimes(_ path: String, streamIndex index: Int, timeout: TimeInterval = 120) throws -> [Double] {
        let data = try ProcessRunner.output("ffprobe", [
            "-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path,
        ], timeout: timeout)
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0) }
    }
}

extension FFprobe {
    /// Presentation times (seconds) of the key-frame packets of stream `index`, sorted.
    static func keyFrameTimes(_ path: String, streamIndex index: Int, timeout: TimeInterval = 120) throws -> [Double] {
        let data = try ProcessRunner.output("ffprobe", [
            "-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path,
        ], timeout: timeout)
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line -> Double? in
            let f = line.split(separator: ",")
            guard f.count >= 2, f[1].contains("K") else { return nil }
            return Double(f[0])
        }.sorted()
    }
}
