import RecordKit

/// ``HandlerInput`` in the JSON form extension manifests use (the `input` member) and the SDK
/// announces in its handshake. docs/EXTENSIONS.md, "input", is the reference.
///
/// ```json
/// {"video": {"format": "raw", "pixelFormat": "bgr0"},
///  "audioApp": {"format": "aac", "bitrate": 160000}, "audioMic": {"format": "pcm"}}
/// ```
extension HandlerInput {
    /// The manifest keys of the streams, in the order documented.
    package static let streamKeys = ["video", "audioApp", "audioMic", "audioMixed"]

    /// This input as a manifest `input` object; streams that are `none` are left out.
    package var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        switch video {
        case .none: break
        case .raw(let format): members["video"] = ["format": "raw", "pixelFormat": .string(format.rawValue)]
        case .encoded(let s):
            var v: [String: JSONValue] = ["format": "h264", "preset": .string(s.preset),
                                          "keyFrameIntervalSeconds": .double(s.keyFrameIntervalSeconds)]
            switch s.rateControl {
            case .crf(let crf): v["crf"] = .int(Int64(crf))
            case .cbr(let bps): v["bitrate"] = .int(Int64(bps))
            }
            if let tune = s.tune { v["tune"] = .string(tune) }
            if let w = s.width { v["width"] = .int(Int64(w)) }
            if let h = s.height { v["height"] = .int(Int64(h)) }
            members["video"] = .object(v)
        }
        for (key, audio) in [("audioApp", appAudio), ("audioMic", micAudio), ("audioMixed", mixedAudio)] {
            switch audio {
            case .none: break
            case .raw: members[key] = ["format": "pcm"]
            case .encoded(let s):
                members[key] = ["format": "aac", "bitrate": .int(Int64(s.bitRate)),
                                "sampleRate": .int(Int64(s.sampleRate)), "channels": .int(Int64(s.channels))]
            }
        }
        return .object(members)
    }

    /// Reads a manifest `input` object found at `path`.
    package init(json: JSONValue, path: String) throws(SchemaError) {
        let object = try ObjectReader(json, path: path)
        try object.allowOnly(Set(Self.streamKeys))
        var input = HandlerInput(video: .none)
        if let v = try object.object("video") { input.video = try Self.video(v) }
        if let a = try object.object("audioApp") { input.appAudio = try Self.audio(a) }
        if let a = try object.object("audioMic") { input.micAudio = try Self.audio(a) }
        if let a = try object.object("audioMixed") { input.mixedAudio = try Self.audio(a) }
        self = input
    }

    private static func video(_ v: ObjectReader) throws(SchemaError) -> VideoInput {
        switch try v.choice("format", ["none", "raw", "h264"]) {
        case nil: throw SchemaError(v.path(of: "format"), "missing (required): \"none\", \"raw\" or \"h264\"")
        case "none":
            try v.allowOnly(["format"])
            return .none
        case "raw":
            try v.allowOnly(["format", "pixelFormat"])
            // yuv420p exists in the SDK, but the recorder converts only to bgr0 so far.
            let pf = try v.choice("pixelFormat", ["bgr0"]) ?? "bgr0"
            return .raw(PixelFormat(rawValue: pf)!)
        default:
            try v.allowOnly(["format", "preset", "tune", "crf", "bitrate", "keyFrameIntervalSeconds", "width", "height"])
            let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]
            var s = VideoEncoderSettings()
            s.preset = try v.choice("preset", presets) ?? s.preset
            s.tune = try v.choice("tune", ["film", "animation", "grain", "stillimage", "fastdecode", "zerolatency"])
            let crf = try v.int("crf", in: 0...51)
            let bitrate = try v.int("bitrate", in: 100_000...100_000_000)
            if crf != nil && bitrate != nil { throw SchemaError(v.path, "give either \"crf\" or \"bitrate\", not both") }
            if let crf { s.rateControl = .crf(Int(crf)) }
            if let bitrate { s.rateControl = .cbr(bitsPerSecond: Int(bitrate)) }
            s.keyFrameIntervalSeconds = try v.double("keyFrameIntervalSeconds", in: 0.1...60) ?? s.keyFrameIntervalSeconds
            s.width = try v.int("width", in: 16...7680).map { Int($0) }
            s.height = try v.int("height", in: 16...4320).map { Int($0) }
            if (s.width == nil) != (s.height == nil) { throw SchemaError(v.path, "give both \"width\" and \"height\", or neither") }
            if let w = s.width, let h = s.height, w % 2 != 0 || h % 2 != 0 {
                throw SchemaError(v.path, "width and height must be even (yuv420p), got \(w)x\(h)")
            }
            return .encoded(s)
        }
    }

    private static func audio(_ a: ObjectReader) throws(SchemaError) -> AudioInput {
        switch try a.choice("format", ["none", "pcm", "aac"]) {
        case nil: throw SchemaError(a.path(of: "format"), "missing (required): \"none\", \"pcm\" or \"aac\"")
        case "none":
            try a.allowOnly(["format"])
            return .none
        case "pcm":
            try a.allowOnly(["format"])
            return .raw
        default:
            try a.allowOnly(["format", "bitrate", "sampleRate", "channels"])
            var s = AudioEncoderSettings()
            s.bitRate = Int(try a.int("bitrate", in: 16_000...512_000) ?? Int64(s.bitRate))
            s.sampleRate = Int(try a.int("sampleRate", in: 8_000...96_000) ?? Int64(s.sampleRate))
            s.channels = Int(try a.int("channels", in: 1...2) ?? Int64(s.channels))
            return .encoded(s)
        }
    }

    /// A short human-readable summary: `raw bgr0 video, app audio as AAC 160 kbit/s`.
    package var summary: String {
        var parts: [String] = []
        switch video {
        case .none: break
        case .raw(let f): parts.append("raw \(f.rawValue) video")
        case .encoded(let s):
            switch s.rateControl {
            case .crf(let c): parts.append("H.264 video (\(s.preset), CRF \(c))")
            case .cbr(let b): parts.append("H.264 video (\(s.preset), \(b / 1000) kbit/s)")
            }
        }
        for (name, audio) in [("app audio", appAudio), ("mic audio", micAudio), ("mixed audio", mixedAudio)] {
            switch audio {
            case .none: break
            case .raw: parts.append("\(name) as PCM")
            case .encoded(let s): parts.append("\(name) as AAC \(s.bitRate / 1000) kbit/s")
            }
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}
