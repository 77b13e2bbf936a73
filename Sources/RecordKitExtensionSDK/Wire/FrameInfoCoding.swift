import RecordKit

/// `VideoFrameInfo` on the wire (damage-driven capture): the `frameInfo` member of a `sample` message,
/// `{"index":12,"previous":11,"changed":true,"dirty":[[x,y,w,h],…]}`; `dirty` absent means
/// unknown (everything may have changed), `previous` absent means the first frame.
extension VideoFrameInfo {
    /// The JSON form.
    package var jsonValue: JSONValue {
        var o: [String: JSONValue] = ["index": .int(frameIndex), "changed": .bool(isChanged)]
        if let previousFrameIndex { o["previous"] = .int(previousFrameIndex) }
        if let dirtyRects {
            o["dirty"] = .array(dirtyRects.map { .array([.int(Int64($0.x)), .int(Int64($0.y)), .int(Int64($0.width)), .int(Int64($0.height))]) })
        }
        return .object(o)
    }

    /// Reads the JSON form.
    init(_ o: ObjectReader) throws(SchemaError) {
        guard let index = try o.int("index") else { throw SchemaError("frameInfo.index", "missing (required)") }
        let dirty = try o.members["dirty"].map { value throws(SchemaError) -> [PixelRect] in
            guard let list = value.array else { throw SchemaError("frameInfo.dirty", "must be an array of [x,y,w,h]") }
            return try list.map { item throws(SchemaError) -> PixelRect in
                guard let n = item.array?.compactMap(\.int), n.count == 4 else {
                    throw SchemaError("frameInfo.dirty", "each rectangle is [x,y,width,height]")
                }
                return PixelRect(x: Int(n[0]), y: Int(n[1]), width: Int(n[2]), height: Int(n[3]))
            }
        }
        self.init(frameIndex: index, previousFrameIndex: try o.int("previous"), isChanged: try o.bool("changed") ?? true,
                  dirtyRects: dirty)
    }
}
