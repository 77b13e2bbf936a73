import Foundation
import RecordKit

/// What the review page's Keep and Discard do with the finished movie.
///
/// Keep with trim points writes the part between them losslessly; that needs the trim engine
/// (`MovieTrimmer` in RecordKitMedia), which is wired in through ``trim``. Until it is, a Keep
/// of the whole movie keeps the file as it is and a Keep with trim points is refused with a
/// message that says so (HTTP 501), never faked.
struct ReviewActions: Sendable {
    /// Writes the part `start`...`end` (seconds from the movie's start) of `input` to `output`
    /// atomically; nil while this build has no trim engine.
    var trim: (@Sendable (_ input: URL, _ start: Double, _ end: Double, _ output: URL) throws -> Void)?

    /// Creates the actions; `trim` nil means trimming is not available in this build.
    init(trim: (@Sendable (_ input: URL, _ start: Double, _ end: Double, _ output: URL) throws -> Void)? = nil) {
        self.trim = trim
    }

    /// Whether Keep can trim.
    var canTrim: Bool { trim != nil }

    /// The outcome of a Keep.
    enum KeepResult: Sendable, Equatable {
        /// The movie at this path is kept.
        case kept(String)
        /// Trimming was asked for and this build cannot trim.
        case trimUnavailable
        /// What failed.
        case failed(String)
    }

    /// Keeps `path`, trimmed to `start`...`end` seconds when they do not cover the whole
    /// `duration` (within a millisecond). The trimmed movie replaces the original.
    func keep(path: String, start: Double, end: Double, duration: Double) -> KeepResult {
        let whole = start <= 0.001 && end >= duration - 0.001
        if whole { return .kept(path) }
        guard let trim else { return .trimUnavailable }
        guard start >= 0, end > start, end <= duration + 0.001 else {
            return .failed("trim points \(start)...\(end) s are outside the movie (0...\(duration) s)")
        }
        let url = URL(fileURLWithPath: path)
        // Same container as the movie (the trimmer writes what the extension names).
        let ext = url.pathExtension.isEmpty ? "mp4" : url.pathExtension
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).trim-\(getpid()).\(ext)")
        do {
            try trim(url, start, end, temporary)
            guard rename(temporary.path, path) == 0 else {
                unlink(temporary.path)
                return .failed("replacing \(path) with the trimmed movie failed: \(String(cString: strerror(errno)))")
            }
            return .kept(path)
        } catch {
            unlink(temporary.path)
            return .failed("trimming \(path) failed: \(error)")
        }
    }

    /// Deletes the movie (and nothing else: the recording's session directory is the
    /// service's, and it was cleaned when the recording finished). True when nothing is left.
    func discard(path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }
}
