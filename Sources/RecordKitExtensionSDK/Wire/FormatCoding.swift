import RecordKit

/// ``FormatDescription`` and ``MediaTime`` in the JSON form of protocol messages
/// (docs/EXTENSIONS.md, "format").
extension FormatDescription {
    /// This format as a protocol `format.description` object.
    package var jsonValue: JSONValue {
        switch self {
        case .video(let v):
            return ["kind": "video", "width": .int(Int64(v.width)), "height": .int(Int64(v.height)),
                    "pixelFormat": .string(v.pixelFormat.rawValue), "colorRange": .string(v.colorRange.rawValue),
                    "colorMatrix": .string(v.colorMatrix.rawValue)]
        case .audio(let a):
            return ["kind": "audio", "sampleRate": .int(Int64(a.sampleRate)), "channels": .int(Int64(a.channels)),
                    "sampleFormat": .string(a.sampleFormat.rawValue), "channelLayout": .string(a.channelLayout)]
        case .encoded(let e):
            return ["kind": "encoded", "codec": .string(e.codec.rawValue), "timescale": .int(Int64(e.timescale)),
                    "extradata": .string(Base64.encode(e.extradata)), "bitRate": .int(Int64(e.bitRate)),
                    "width": .int(Int64(e.width)), "height": .int(Int64(e.height)), "frameRate": .int(Int64(e.frameRate)),
                    "sampleRate": .int(Int64(e.sampleRate)), "channels": .int(Int64(e.channels)),
                    "frameSize": .int(Int64(e.frameSize))]
        }
    }

    /// Reads a protocol `format.description` object.
    package init(json: JSONValue) throws(SchemaError) {
        let o = try ObjectReader(json, path: "description")
        func int(_ key: String, _ range: ClosedRange<Int64> = 0...Int64(Int32.max)) throws(SchemaError) -> Int {
            guard let v = try o.int(key, in: range) else { throw SchemaError(o.path(of: key), "missing (required)") }
            return Int(v)
        }
        switch try o.choice("kind", ["video", "audio", "encoded"]) {
        case "video":
            guard let pf = PixelFormat(rawValue: try o.requiredString("pixelFormat")) else {
                throw SchemaError(o.path(of: "pixelFormat"), "unknown pixel format")
            }
            self = .video(VideoFormat(width: try int("width", 1...65536), height: try int("height", 1...65536), pixelFormat: pf,
                                      colorRange: ColorRange(rawValue: try o.string("colorRange") ?? "full") ?? .full,
                                      colorMatrix: ColorMatrix(rawValue: try o.string("colorMatrix") ?? "bt709") ?? .bt709))
        case "audio":
            guard let sf = AudioSampleFormat(rawValue: try o.requiredString("sampleFormat")) else {
                throw SchemaError(o.path(of: "sampleFormat"), "unknown sample format")
            }
            self = .audio(AudioFormat(sampleRate: try int("sampleRate", 1...768_000), channels: try int("channels", 1...64),
                                      sampleFormat: sf, channelLayout: try o.string("channelLayout")))
        case "encoded":
            guard let codec = Codec(rawValue: try o.requiredString("codec")) else {
                throw SchemaError(o.path(of: "codec"), "unknown codec")
            }
            guard let extradata = Base64.decode(try o.string("extradata") ?? "") else {
                throw SchemaError(o.path(of: "extradata"), "not base64")
            }
            self = .encoded(EncodedFormat(codec: codec, timescale: Int32(try int("timescale", 1...Int64(Int32.max))),
                                          extradata: extradata, bitRate: try int("bitRate"), width: try int("width"),
                                          height: try int("height"), frameRate: try int("frameRate"),
                                          sampleRate: try int("sampleRate"), channels: try int("channels"),
                                          frameSize: try int("frameSize")))
        default:
            throw SchemaError(o.path(of: "kind"), "missing (required)")
        }
    }
}

extension MediaTime {
    /// The time as a protocol `[value, timescale]` pair.
    package var jsonValue: JSONValue { [.int(value), .int(Int64(timescale))] }

    /// Reads a `[value, timescale]` pair found at `path`.
    package init(json: JSONValue?, path: String) throws(SchemaError) {
        guard let pair = json?.array, pair.count == 2, case .int(let value) = pair[0], case .int(let scale) = pair[1],
              scale > 0, scale <= Int64(Int32.max) else {
            throw SchemaError(path, "expected [value, timescale] with a positive 32-bit timescale")
        }
        self.init(value: value, timescale: Int32(scale))
    }
}
