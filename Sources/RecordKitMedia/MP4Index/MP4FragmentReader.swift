/// Reads the sample lists of one movie fragment (`moof`: `tfhd`, `tfdt`, `trun`) into the
/// tracks' ``MP4TrackTable``s, with each sample's absolute file offset. Pure function of its
/// input; no I/O.
enum MP4FragmentReader {
    /// A track's defaults from `mvex/trex`, which a fragment's `tfhd` may override.
    struct Defaults {
        var duration: UInt32 = 0
        var size: UInt32 = 0
        var flags: UInt32 = 0
    }

    /// The `trex` defaults of each track in a fragmented `moov` (`bytes`, the whole box).
    static func defaults(inMovie bytes: [UInt8]) throws(MediaError) -> [UInt32: Defaults] {
        var result: [UInt32: Defaults] = [:]
        guard let moov = try MP4Box.children(of: bytes, in: 0..<bytes.count).first,
              let mvex = try MP4Box.child("mvex", of: moov, in: bytes) else { return result }
        for trex in try MP4Box.children(of: bytes, in: mvex.payload) where trex.type == "trex" && trex.size >= 32 {
            let p = trex.payload.lowerBound + 4
            result[bytes.be32(at: p)] = Defaults(duration: bytes.be32(at: p + 8), size: bytes.be32(at: p + 12), flags: bytes.be32(at: p + 16))
        }
        return result
    }

    /// Adds the samples of the fragment `moof` (the whole box, which starts at `moofOffset` in
    /// the file) to `tables`, keeping only samples whose bytes end at or before `fileEnd` (a
    /// fragment cut short by a crash gives what was written). Returns the end of the last
    /// sample kept (0 when none). Throws when the fragment is malformed.
    static func read(_ moof: [UInt8], at moofOffset: UInt64, defaults: [UInt32: Defaults],
                     into tables: inout [UInt32: MP4TrackTable], fileEnd: UInt64) throws(MediaError) -> UInt64 {
        var dataEnd: UInt64 = 0
        var previousTrafEnd = moofOffset
        guard let root = try MP4Box.children(of: moof, in: 0..<moof.count).first, root.type == "moof" else {
            throw MediaError("MP4 index: expected a 'moof' box at \(moofOffset)")
        }
        for traf in try MP4Box.children(of: moof, in: root.payload) where traf.type == "traf" {
            let children = try MP4Box.children(of: moof, in: traf.payload)
            guard let tfhd = children.first(where: { $0.type == "tfhd" }), tfhd.size >= 16 else {
                throw MediaError("MP4 index: a fragment at \(moofOffset) has a track without 'tfhd'")
            }
            var p = tfhd.payload.lowerBound
            let tfhdFlags = moof.be32(at: p) & 0xFF_FFFF
            let trackID = moof.be32(at: p + 4)
            p += 8
            var track = defaults[trackID] ?? Defaults()
            var base = tfhdFlags & 0x2_0000 != 0 ? moofOffset : previousTrafEnd
            func need(_ count: Int) throws(MediaError) {
                guard p + count <= tfhd.range.upperBound else { throw MediaError("MP4 index: a 'tfhd' at \(moofOffset) is too short") }
            }
            if tfhdFlags & 0x01 != 0 { try need(8); base = moof.be64(at: p); p += 8 }
            if tfhdFlags & 0x02 != 0 { p += 4 }
            if tfhdFlags & 0x08 != 0 { try need(4); track.duration = moof.be32(at: p); p += 4 }
            if tfhdFlags & 0x10 != 0 { try need(4); track.size = moof.be32(at: p); p += 4 }
            if tfhdFlags & 0x20 != 0 { try need(4); track.flags = moof.be32(at: p); p += 4 }

            var table = tables[trackID] ?? MP4TrackTable(trackID: trackID)
            var decodeTime: UInt64?
            if let tfdt = children.first(where: { $0.type == "tfdt" }), tfdt.size >= 16 {
                let q = tfdt.payload.lowerBound
                decodeTime = moof[q] == 1 && tfdt.size >= 20 ? moof.be64(at: q + 4) : UInt64(moof.be32(at: q + 4))
            }
            table.beginFragment(decodeTime: decodeTime)
            var cursor = base
            var cut = false
            for trun in children where trun.type == "trun" && !cut {
                var q = trun.payload.lowerBound
                let end = trun.range.upperBound
                guard q + 8 <= end else { throw MediaError("MP4 index: a 'trun' at \(moofOffset) is too short") }
                let flags = moof.be32(at: q) & 0xFF_FFFF
                let count = Int(moof.be32(at: q + 4))
                q += 8
                if flags & 0x01 != 0 { cursor = UInt64(Int64(base) + Int64(Int32(bitPattern: moof.be32(at: q)))); q += 4 }
                var firstFlags: UInt32?
                if flags & 0x04 != 0 { firstFlags = moof.be32(at: q); q += 4 }
                let perSample = [0x100, 0x200, 0x400, 0x800].filter { Int(flags) & $0 != 0 }.count * 4
                guard q + count * perSample <= end else { throw MediaError("MP4 index: a 'trun' at \(moofOffset) lists more samples than it holds") }
                for index in 0..<count {
                    var duration = track.duration, size = track.size
                    var sampleFlags = index == 0 ? (firstFlags ?? track.flags) : track.flags
                    var composition: Int32 = 0
                    if flags & 0x100 != 0 { duration = moof.be32(at: q); q += 4 }
                    if flags & 0x200 != 0 { size = moof.be32(at: q); q += 4 }
                    if flags & 0x400 != 0 { let f = moof.be32(at: q); q += 4; if index != 0 || firstFlags == nil { sampleFlags = f } }
                    if flags & 0x800 != 0 { composition = Int32(bitPattern: moof.be32(at: q)); q += 4 }
                    guard cursor + UInt64(size) <= fileEnd else { cut = true; break }
                    table.append(offset: cursor, size: size, duration: duration, compositionOffset: composition,
                                 isSync: sampleFlags & 0x1_0000 == 0)
                    cursor += UInt64(size)
                    dataEnd = max(dataEnd, cursor)
                }
            }
            previousTrafEnd = cursor
            tables[trackID] = table
        }
        return dataEnd
    }
}
