import RecordKit

/// The `sample` message: everything about one ``SampleBuffer`` except its bytes, which lie in a
/// shared-memory region (`length` bytes at `offset`) until the extension releases `ref`.
package struct SampleHeader: Sendable, Equatable {
    /// What kind of payload the bytes are, with its particulars.
    package enum Detail: Sendable, Equatable {
        /// Raw pixels: where each plane starts in the bytes, and its row stride.
        case pixels(planeOffsets: [Int], bytesPerRow: [Int])
        /// PCM: frame count and index of the first frame on its track.
        case pcm(frameCount: Int, startFrame: Int64)
        /// One encoded packet.
        case packet(decodeTime: MediaTime, isKeyFrame: Bool, encoderID: String)
    }

    /// The sample type.
    package var stream: SampleBufferType
    /// The id of a format announced earlier.
    package var format: Int
    /// Presentation time.
    package var presentationTime: MediaTime
    /// Duration.
    package var duration: MediaTime
    /// The reference the extension releases when it no longer reads the bytes.
    package var ref: Int
    /// The region that holds the bytes.
    package var region: Int
    /// Byte offset in the region.
    package var offset: Int
    /// Number of bytes.
    package var length: Int
    /// Payload particulars.
    package var detail: Detail
    /// For raw video: what changed since the previous frame (``VideoFrameInfo``), if known.
    package var frameInfo: VideoFrameInfo?

    /// Describes a sample.
    package init(stream: SampleBufferType, format: Int, presentationTime: MediaTime, duration: MediaTime,
                 ref: Int, region: Int, offset: Int, length: Int, detail: Detail, frameInfo: VideoFrameInfo? = nil) {
        self.frameInfo = frameInfo
        self.stream = stream
        self.format = format
        self.presentationTime = presentationTime
        self.duration = duration
        self.ref = ref
        self.region = region
        self.offset = offset
        self.length = length
        self.detail = detail
    }

    /// The message as JSON.
    package var jsonValue: JSONValue {
        var o: [String: JSONValue] = [
            "type": "sample", "stream": .string(stream.rawValue), "format": .int(Int64(format)),
            "pts": presentationTime.jsonValue, "duration": duration.jsonValue, "ref": .int(Int64(ref)),
            "region": .int(Int64(region)), "offset": .int(Int64(offset)), "length": .int(Int64(length)),
        ]
        switch detail {
        case .pixels(let offsets, let strides):
            o["pixels"] = ["planeOffsets": .array(offsets.map { .int(Int64($0)) }), "bytesPerRow": .array(strides.map { .int(Int64($0)) })]
        case .pcm(let frames, let start):
            o["pcm"] = ["frames": .int(Int64(frames)), "startFrame": .int(start)]
        case .packet(let dts, let key, let encoder):
            o["packet"] = ["dts": dts.jsonValue, "key": .bool(key), "encoder": .string(encoder)]
        }
        if let frameInfo { o["frameInfo"] = frameInfo.jsonValue }
        return .object(o)
    }

    /// Reads the members of a `sample` message.
    init(_ o: ObjectReader) throws(SchemaError) {
        guard let stream = SampleBufferType(rawValue: try o.requiredString("stream")) else {
            throw SchemaError("stream", "unknown stream")
        }
        func int(_ key: String) throws(SchemaError) -> Int {
            guard let v = try o.int(key, in: 0...Int64(Int.max)) else { throw SchemaError(key, "missing (required)") }
            return Int(v)
        }
        self.stream = stream
        self.format = try int("format")
        self.presentationTime = try MediaTime(json: o.members["pts"], path: "pts")
        self.duration = try MediaTime(json: o.members["duration"], path: "duration")
        self.ref = try int("ref")
        self.region = try int("region")
        self.offset = try int("offset")
        self.length = try int("length")
        self.frameInfo = try o.object("frameInfo").map { info throws(SchemaError) in try VideoFrameInfo(info) }
        if let p = try o.object("pixels") {
            let offsets = p.members["planeOffsets"]?.array?.compactMap(\.int).map { Int($0) } ?? []
            let strides = p.members["bytesPerRow"]?.array?.compactMap(\.int).map { Int($0) } ?? []
            guard !offsets.isEmpty, offsets.count == strides.count else {
                throw SchemaError("pixels", "planeOffsets and bytesPerRow must be non-empty arrays of equal length")
            }
            detail = .pixels(planeOffsets: offsets, bytesPerRow: strides)
        } else if let p = try o.object("pcm") {
            guard let frames = try p.int("frames", in: 0...Int64(Int32.max)), let start = try p.int("startFrame") else {
                throw SchemaError("pcm", "frames and startFrame are required")
            }
            detail = .pcm(frameCount: Int(frames), startFrame: start)
        } else if let p = try o.object("packet") {
            detail = .packet(decodeTime: try MediaTime(json: p.members["dts"], path: "packet.dts"),
                             isKeyFrame: try p.bool("key") ?? false, encoderID: try p.string("encoder") ?? "")
        } else {
            throw SchemaError("", "a sample needs one of pixels, pcm or packet")
        }
    }
}
