/// Turns a fragmented movie's `moov` (sample descriptions, no samples, `mvex`) and the samples
/// its fragments list into the `moov` of a plain MP4: the same tracks and sample descriptions
/// with full sample tables, real durations, edit lists on the plain file's timeline (media time
/// starts at the first sample), no `mvex`, and chapters as a Nero `chpl` list (as libavformat
/// writes them). Pure function of its input; no I/O.
enum MP4MovieBuilder {
    /// The plain `moov` for `movie` (the fragmented `moov` box) and `tables` (by track ID).
    static func build(movie: [UInt8], tables: [UInt32: MP4TrackTable], chapters: [MediaChapter]) throws(MediaError) -> [UInt8] {
        guard let moov = try MP4Box.children(of: movie, in: 0..<movie.count).first, moov.type == "moov" else {
            throw MediaError("MP4 index: the movie header is not a 'moov' box")
        }
        let children = try MP4Box.children(of: movie, in: moov.payload)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }), mvhd.size >= 32 else {
            throw MediaError("MP4 index: the movie has no 'mvhd'")
        }
        let movieScale = UInt64(movie.be32(at: mvhd.payload.lowerBound + (movie[mvhd.payload.lowerBound] == 1 ? 20 : 12)))
        let wide = tables.values.contains { $0.largestOffset > UInt64(UInt32.max) }
        var tracks: [(MP4Box, UInt64)] = []
        var movieDuration: UInt64 = 0
        for trak in children where trak.type == "trak" {
            let presented = try presentationDuration(of: trak, in: movie, tables: tables, movieScale: movieScale)
            tracks.append((trak, presented))
            movieDuration = max(movieDuration, presented)
        }
        var writer = MP4BoxWriter()
        var wroteChapters = false
        writer.box("moov") { w in
            for child in children {
                switch child.type {
                case "mvhd": w.raw(withDuration(movieDuration, header: child, in: movie, kind: .movie))
                case "mvex": continue
                case "trak":
                    guard let entry = tracks.first(where: { $0.0.start == child.start }) else { continue }
                    writeTrack(child, presented: entry.1, movie: movie, tables: tables, movieScale: movieScale, wide: wide, into: &w)
                case "udta":
                    w.box("udta") { u in
                        for box in (try? MP4Box.children(of: movie, in: child.payload)) ?? [] where box.type != "chpl" {
                            u.raw(movie[box.range])
                        }
                        if !chapters.isEmpty { writeChapters(chapters, into: &u) }
                    }
                    wroteChapters = true
                default: w.raw(movie[child.range])
                }
            }
            if !wroteChapters, !chapters.isEmpty {
                w.box("udta") { u in writeChapters(chapters, into: &u) }
            }
        }
        return writer.bytes
    }

    private enum HeaderKind { case movie, track, media }

    /// `box` (`mvhd`, `tkhd` or `mdhd`) with its duration set to `duration`, as version 1
    /// when the value needs 64 bits and the box was version 0.
    private static func withDuration(_ duration: UInt64, header box: MP4Box, in bytes: [UInt8], kind: HeaderKind) -> [UInt8] {
        let p = box.payload.lowerBound
        let version = bytes[p]
        // Bytes between the times and the duration: timescale (mvhd, mdhd) or track ID + reserved (tkhd).
        let middle = kind == .track ? 8 : 4
        var out = Array(bytes[box.range])
        let headerOffset = box.headerSize
        if version == 1 {
            let at = headerOffset + 4 + 16 + middle
            for i in 0..<8 { out[at + i] = UInt8(truncatingIfNeeded: duration >> (56 - 8 * UInt64(i))) }
            return out
        }
        if duration <= UInt64(UInt32.max) {
            let at = headerOffset + 4 + 8 + middle
            for i in 0..<4 { out[at + i] = UInt8(truncatingIfNeeded: duration >> (24 - 8 * UInt64(i))) }
            return out
        }
        var w = MP4BoxWriter()
        w.fullBox(MP4Box.fourCC(bytes, at: box.start + 4), version: 1, flags: bytes.be32(at: p) & 0xFF_FFFF) { w in
            w.u64(UInt64(bytes.be32(at: p + 4)))
            w.u64(UInt64(bytes.be32(at: p + 8)))
            w.raw(bytes[(p + 12)..<(p + 12 + middle)])
            w.u64(duration)
            w.raw(bytes[(p + 16 + middle)..<box.range.upperBound])
        }
        return w.bytes
    }

    /// The track's media: its ID, timescale and table.
    private static func media(of trak: MP4Box, in bytes: [UInt8], tables: [UInt32: MP4TrackTable]) throws(MediaError) -> (table: MP4TrackTable, scale: UInt64) {
        guard let tkhd = try MP4Box.child("tkhd", of: trak, in: bytes), let mdia = try MP4Box.child("mdia", of: trak, in: bytes),
              let mdhd = try MP4Box.child("mdhd", of: mdia, in: bytes) else {
            throw MediaError("MP4 index: a track lacks 'tkhd', 'mdia' or 'mdhd'")
        }
        let t = tkhd.payload.lowerBound
        let trackID = bytes.be32(at: t + (bytes[t] == 1 ? 20 : 12))
        let m = mdhd.payload.lowerBound
        let scale = UInt64(bytes.be32(at: m + (bytes[m] == 1 ? 20 : 12)))
        guard scale > 0 else { throw MediaError("MP4 index: track \(trackID) has a zero timescale") }
        return (tables[trackID] ?? MP4TrackTable(trackID: trackID), scale)
    }

    /// One edit-list entry: duration in the movie timescale, media time (-1: empty edit), rate.
    private typealias Edit = (duration: UInt64, mediaTime: Int64, rate: UInt32)

    /// The track's edits on the plain file's timeline. A fragmented file's media times are
    /// absolute (its first `tfdt`); a plain file's start at zero, so media times move back by
    /// the first decode time, an edit that would start before the media begins with an empty
    /// edit instead, and an open-ended edit (duration 0) lasts to the end of the last picture or
    /// sound (composition offsets included, as libavformat computes it).
    private static func edits(of trak: MP4Box, in bytes: [UInt8], tables: [UInt32: MP4TrackTable], movieScale: UInt64) throws(MediaError) -> [Edit] {
        let (table, scale) = try media(of: trak, in: bytes, tables: tables)
        let first = Int64(table.firstDecodeTime ?? 0)
        let presentationEnd = table.presentationEnd
        func toMovie(_ value: Int64) -> UInt64 { UInt64(max(0, (value * Int64(movieScale) + Int64(scale) / 2) / Int64(scale))) }
        var given: [Edit] = []
        if let edts = try MP4Box.child("edts", of: trak, in: bytes), let elst = try MP4Box.child("elst", of: edts, in: bytes) {
            var p = elst.payload.lowerBound
            let version = bytes[p]
            let count = Int(bytes.be32(at: p + 4))
            p += 8
            let entrySize = version == 1 ? 20 : 12
            guard p + count * entrySize <= elst.range.upperBound else { throw MediaError("MP4 index: an 'elst' is too short") }
            for _ in 0..<count {
                if version == 1 {
                    given.append((bytes.be64(at: p), Int64(bitPattern: bytes.be64(at: p + 8)), bytes.be32(at: p + 16)))
                } else {
                    given.append((UInt64(bytes.be32(at: p)), Int64(Int32(bitPattern: bytes.be32(at: p + 4))), bytes.be32(at: p + 8)))
                }
                p += entrySize
            }
        }
        if given.isEmpty { given = [(0, first, 0x1_0000)] }
        var result: [Edit] = []
        for edit in given {
            if edit.mediaTime < 0 { result.append(edit); continue }
            var mediaTime = edit.mediaTime - first
            if mediaTime < 0 {
                result.append((toMovie(-mediaTime), -1, 0x1_0000))
                mediaTime = 0
            }
            let duration = edit.duration > 0 ? edit.duration : toMovie(presentationEnd - mediaTime)
            result.append((duration, mediaTime, edit.rate))
        }
        return result
    }

    /// The track's presentation length in the movie timescale (the sum of its edits).
    private static func presentationDuration(of trak: MP4Box, in bytes: [UInt8], tables: [UInt32: MP4TrackTable], movieScale: UInt64) throws(MediaError) -> UInt64 {
        try edits(of: trak, in: bytes, tables: tables, movieScale: movieScale).reduce(0) { $0 + $1.duration }
    }

    private static func writeTrack(_ trak: MP4Box, presented: UInt64, movie: [UInt8], tables: [UInt32: MP4TrackTable],
                                   movieScale: UInt64, wide: Bool, into writer: inout MP4BoxWriter) {
        guard let (table, _) = try? media(of: trak, in: movie, tables: tables),
              let edits = try? edits(of: trak, in: movie, tables: tables, movieScale: movieScale),
              let children = try? MP4Box.children(of: movie, in: trak.payload) else { return }
        writer.box("trak") { w in
            for child in children {
                switch child.type {
                case "tkhd":
                    w.raw(withDuration(presented, header: child, in: movie, kind: .track))
                    let long = edits.contains { $0.duration > UInt64(UInt32.max) || $0.mediaTime > Int64(Int32.max) }
                    w.box("edts") { e in
                        e.fullBox("elst", version: long ? 1 : 0) { l in
                            l.u32(UInt32(edits.count))
                            for edit in edits {
                                if long { l.u64(edit.duration); l.u64(UInt64(bitPattern: edit.mediaTime)) } else {
                                    l.u32(UInt32(edit.duration)); l.u32(UInt32(bitPattern: Int32(edit.mediaTime)))
                                }
                                l.u32(edit.rate)
                            }
                        }
                    }
                case "edts": continue
                case "mdia": writeMedia(child, table: table, movie: movie, wide: wide, into: &w)
                default: w.raw(movie[child.range])
                }
            }
        }
    }

    private static func writeMedia(_ mdia: MP4Box, table: MP4TrackTable, movie: [UInt8], wide: Bool, into writer: inout MP4BoxWriter) {
        let children = (try? MP4Box.children(of: movie, in: mdia.payload)) ?? []
        writer.box("mdia") { w in
            for child in children {
                switch child.type {
                case "mdhd": w.raw(withDuration(table.mediaDuration, header: child, in: movie, kind: .media))
                case "minf":
                    w.box("minf") { m in
                        for box in (try? MP4Box.children(of: movie, in: child.payload)) ?? [] {
                            guard box.type == "stbl" else { m.raw(movie[box.range]); continue }
                            // Only the sample descriptions carry over; every table is rebuilt.
                            let stsd = (try? MP4Box.child("stsd", of: box, in: movie)).flatMap { $0 }
                            table.writeSampleTable(stsd: stsd.map { movie[$0.range] } ?? [], wideOffsets: wide, into: &m)
                        }
                    }
                default: w.raw(movie[child.range])
                }
            }
        }
    }

    /// The Nero chapter list as libavformat's MP4 muxer writes it: at most 255 chapters, start
    /// in 100 ns units, titles of at most 255 bytes.
    private static func writeChapters(_ chapters: [MediaChapter], into writer: inout MP4BoxWriter) {
        writer.fullBox("chpl", version: 1) { w in
            w.u32(0)
            let listed = chapters.prefix(255)
            w.u8(UInt8(listed.count))
            for chapter in listed {
                w.u64(UInt64(max(0, chapter.start.nanoseconds / 100)))
                var title = Array(chapter.title.utf8)
                if title.count > 255 {
                    // Never end inside a UTF-8 sequence: drop the last, possibly cut, character.
                    title = Array(title.prefix(255))
                    while let last = title.last, last & 0xC0 == 0x80 { title.removeLast() }
                    if let last = title.last, last >= 0xC0 { title.removeLast() }
                }
                w.u8(UInt8(title.count))
                w.raw(title)
            }
        }
    }
}
