import Foundation

/// Per-frame statistics of a video stream (mean Y, U, V and the presentation time), from
/// FFmpeg's `signalstats` filter: cheap enough to look at every frame of a recording.
struct FrameStat: Sendable {
    var time: Double
    var y: Double
    var u: Double
    var v: Double
}

enum FrameStats {
    /// Every frame of the first video stream of `path` (or of the stream with absolute index
    /// `streamIndex`), optionally cropped to `crop` first.
    static func frames(_ path: String, streamIndex: Int? = nil, crop: PixelRect? = nil, timeout: TimeInterval = 120) throws -> [FrameStat] {
        var filter = "movie=\(path.replacingOccurrences(of: ":", with: "\\\\:"))"
        if let streamIndex { filter += ":si=\(streamIndex)" }
        if let c = crop { filter += ",crop=\(c.width):\(c.height):\(c.x):\(c.y)" }
        filter += ",scale=64:36,signalstats"
        let data = try ProcessRunner.output("ffprobe", ["-v", "error", "-f", "lavfi", "-i", filter, "-show_entries",
                                                         "frame=pts_time:frame_tags=lavfi.signalstats.YAVG,lavfi.signalstats.UAVG,lavfi.signalstats.VAVG",
                                                         "-of", "json"], timeout: timeout)
        let json = (try JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let frames = json?["frames"] as? [[String: Any]] ?? []
        return frames.compactMap { f in
            guard let t = Double(f["pts_time"] as? String ?? ""), let tags = f["tags"] as? [String: String],
                  let y = Double(tags["lavfi.signalstats.YAVG"] ?? ""), let u = Double(tags["lavfi.signalstats.UAVG"] ?? ""),
                  let v = Double(tags["lavfi.signalstats.VAVG"] ?? "") else { return nil }
            return FrameStat(time: t, y: y, u: u, v: v)
        }
    }

    /// Times where the luma rises through the midpoint between `low` and `high` (flash onsets).
    static func flashOnsets(_ frames: [FrameStat], low: Double = 16, high: Double = 235) -> [Double] {
        let mid = (low + high) / 2
        var onsets: [Double] = []
        for i in 1..<max(frames.count, 1) where frames[i - 1].y < mid && frames[i].y >= mid {
            onsets.append(frames[i].time)
        }
        return onsets
    }
}

enum BeepDetector {
    /// Onset times of a `frequency` beep in audio stream `audioStream` of `path`: 5 ms hops,
    /// rising through half the loudest hop's power, at least 0.3 s apart.
    static func onsets(_ path: String, audioStream: Int, frequency: Double = 3000) throws -> [Double] {
        let samples = try ToneAnalyzer.samples(path, audioStream: audioStream).map { Double($0) / 32768 }
        let hop = 240
        var powers: [Double] = []
        var i = 0
        while i + hop <= samples.count {
            powers.append(ToneAnalyzer.goertzel(Array(samples[i..<(i + hop)]), frequency: frequency))
            i += hop
        }
        guard let peak = powers.max(), peak > 0 else { return [] }
        var onsets: [Double] = []
        for k in 1..<max(powers.count, 1) where powers[k - 1] < peak / 2 && powers[k] >= peak / 2 {
            let t = Double(k * hop) / 48_000
            if let last = onsets.last, t - last < 0.3 { continue }
            onsets.append(t)
        }
        return onsets
    }
}
