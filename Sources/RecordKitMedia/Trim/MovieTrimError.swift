/// Why ``MovieTrimmer/trim(input:start:end:output:)`` failed. Every case leaves nothing behind:
/// no output file and no temporary file. ``description`` says what failed, with which file, and
/// what to do.
package enum MovieTrimError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input file does not exist.
    case inputMissing(path: String)
    /// The input exists but is not a movie this trimmer can read (not a container FFmpeg knows,
    /// no video stream, or a video stream with no key frame to start from).
    case notAMovie(path: String, reason: String)
    /// `start` or `end` is not a finite number of seconds ≥ 0, or `start >= end`.
    case invalidRange(start: Double, end: Double)
    /// `start` is at or after the end of the movie (`duration` seconds).
    case startBeyondDuration(start: Double, duration: Double)
    /// The output cannot be written: its directory is missing or not writable, it names the
    /// input itself, or its extension names no container FFmpeg can write.
    case outputUnwritable(path: String, reason: String)
    /// Reading, decoding, encoding or writing failed part-way (the media layer's message).
    case failed(message: String)

    /// What failed and what to do.
    package var description: String {
        switch self {
        case .inputMissing(let path):
            return "\(path) does not exist; give the path of a recording"
        case .notAMovie(let path, let reason):
            return "\(path) is not a movie that can be trimmed: \(reason)"
        case .invalidRange(let start, let end):
            if !start.isFinite || !end.isFinite || start < 0 || end < 0 {
                return "trim range \(start)…\(end) s is not valid; give seconds ≥ 0"
            }
            return "trim range \(start)…\(end) s is empty: the start must be before the end"
        case .startBeyondDuration(let start, let duration):
            return "the start \(start) s is beyond the end of the movie (\(String(format: "%.3f", duration)) s); give a start before it"
        case .outputUnwritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .failed(let message):
            return "trimming failed: \(message)"
        }
    }
}
