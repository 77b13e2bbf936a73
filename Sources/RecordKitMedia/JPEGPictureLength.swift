import Glibc

/// Where a JPEG picture ends in a camera's buffer: the byte after its EOI marker, found by
/// walking its marker segments (their lengths) and scanning only the entropy-coded data for the
/// next marker (there a 0xFF is always followed by 0x00 or a restart marker, so an EOI cannot
/// hide in it, while an EXIF thumbnail in an APP segment, which has one, is skipped whole).
///
/// Needed because a camera's buffer may hold more than the picture: zero padding after it
/// (UVC cameras), or the rest of an older, longer picture (GStreamer's pipewiresink reports the
/// whole buffer). Written here because libavcodec has no call that says where a JPEG ends
/// without decoding it. Pure; any thread.
enum JPEGPictureLength {
    /// Why a buffer holds no whole JPEG picture.
    enum Failure: Error, Equatable {
        /// It does not start with SOI (0xFF 0xD8).
        case notJPEG
        /// It ends before the picture's EOI (0xFF 0xD9): cut short.
        case cutShort
    }

    /// The length of the JPEG picture at the start of `data`, its EOI included.
    static func of(_ data: UnsafeRawBufferPointer) -> Result<Int, Failure> {
        let n = data.count
        guard n >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return .failure(.notJPEG) }
        var i = 2
        while i + 1 < n {
            // A marker: 0xFF (fill bytes of 0xFF may precede it), then its code.
            guard data[i] == 0xFF else { return .failure(.notJPEG) }
            var code = data[i + 1]
            while code == 0xFF, i + 2 < n {
                i += 1
                code = data[i + 1]
            }
            i += 2
            switch code {
            case 0xD9:
                return .success(i)
            case 0xD0...0xD7, 0x01:
                continue  // restart markers and TEM have no length
            default:
                guard i + 1 < n else { return .failure(.cutShort) }
                let length = Int(data[i]) << 8 | Int(data[i + 1])
                guard length >= 2 else { return .failure(.notJPEG) }
                i += length
                guard code == 0xDA else { continue }
                // Start of scan: entropy-coded data up to the next marker that is not a stuffed
                // 0xFF 0x00 or a restart marker.
                guard let base = data.baseAddress else { return .failure(.cutShort) }
                while i + 1 < n {
                    guard let ff = memchr(base + i, 0xFF, n - 1 - i) else { return .failure(.cutShort) }
                    i = base.distance(to: UnsafeRawPointer(ff))
                    let next = data[i + 1]
                    if next != 0x00, !(0xD0...0xD7).contains(next) { break }
                    i += 2
                }
            }
        }
        return .failure(.cutShort)
    }
}
