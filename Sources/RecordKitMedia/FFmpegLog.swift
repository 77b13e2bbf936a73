import CFFmpeg
import Glibc
import Synchronization

/// FFmpeg's log (`av_log`) through one process-wide callback that never prints a secret.
///
/// libavformat's network protocols log URLs and server replies, which may hold a stream key.
/// Once ``install()`` ran, every FFmpeg message goes through a callback that
///
/// * replaces each registered secret (``addSecret(_:)``) with `****`;
/// * prints to stderr, as FFmpeg's default callback does, what is at or above
///   `av_log_get_level()` (FFmpeg's default: info);
/// * on a thread between ``beginCapture()`` and ``endCapture()``, keeps warnings and errors
///   for ``takeCaptured()`` instead of printing them, so a connection can explain its failure in
///   its own words (`Failed to resolve hostname …`, `Server error: …`) without FFmpeg printing
///   half of it on its own.
///
/// Threading: every member may be called from any thread.
package enum FFmpegLog {
    /// Installs the callback. Idempotent; cheap after the first call.
    package static func install() { _ = installed }

    /// Masks `secret` in every FFmpeg message from now on, until a matching ``removeSecret(_:)``
    /// (registrations are counted). Empty strings are ignored.
    package static func addSecret(_ secret: String) {
        guard !secret.isEmpty else { return }
        install()
        logState.withLock { $0.secrets[secret, default: 0] += 1 }
    }

    /// Undoes one ``addSecret(_:)`` of `secret`.
    package static func removeSecret(_ secret: String) {
        logState.withLock { state in
            guard let count = state.secrets[secret] else { return }
            state.secrets[secret] = count > 1 ? count - 1 : nil
        }
    }

    /// `text` with every registered secret replaced by `****`.
    package static func mask(_ text: String) -> String {
        logState.withLock { $0.masked(text) }
    }

    /// From now on, FFmpeg warnings and errors logged on the calling thread are kept (masked)
    /// for ``takeCaptured()`` instead of printed, and its info and debug messages are dropped;
    /// until ``endCapture()`` on the same thread. For a thread that owns a connection and
    /// reports its failures in its own words.
    package static func beginCapture() {
        install()
        let thread = UInt(pthread_self())
        logState.withLock { $0.captures[thread] = $0.captures[thread] ?? "" }
    }

    /// The messages the calling thread captured since the last call, one per line, oldest first;
    /// forgets them.
    package static func takeCaptured() -> [String] {
        let thread = UInt(pthread_self())
        let text: String = logState.withLock { state in
            guard let text = state.captures[thread] else { return "" }
            state.captures[thread] = ""
            return text
        }
        return text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    }

    /// Ends ``beginCapture()`` for the calling thread; what was not taken is dropped.
    package static func endCapture() {
        let thread = UInt(pthread_self())
        _ = logState.withLock { $0.captures.removeValue(forKey: thread) }
    }

    /// Installs the callback and sets FFmpeg's level from `RECORDKIT_FFMPEG_LOG` (`quiet`,
    /// `error`, `warning` (the default: libx264's banner and statistics are info), `info`,
    /// `verbose`, `debug`). Idempotent; the recorder calls it.
    package static func configureFromEnvironment() { _ = configured }

    private static let configured: Bool = {
        install()
        let levels: [String: Int32] = ["quiet": AV_LOG_QUIET, "error": AV_LOG_ERROR, "warning": AV_LOG_WARNING,
                                       "info": AV_LOG_INFO, "verbose": AV_LOG_VERBOSE, "debug": AV_LOG_DEBUG]
        let name = getenv("RECORDKIT_FFMPEG_LOG").map { String(cString: $0) } ?? "warning"
        av_log_set_level(levels[name] ?? AV_LOG_WARNING)
        return true
    }()

    private static let installed: Bool = {
        av_log_set_callback(ffmpegLogCallback)
        return true
    }()
}

private struct LogState {
    /// Registered secrets and how many times each was registered.
    var secrets: [String: Int] = [:]
    /// Threads between `beginCapture` and `endCapture`, with what they collected.
    var captures: [UInt: String] = [:]
    /// av_log_format_line2's "start of a line" state, shared as FFmpeg's default callback does.
    var printPrefix: Int32 = 1

    func masked(_ text: String) -> String {
        var text = text
        for secret in secrets.keys.sorted(by: { $0.count > $1.count }) where text.contains(secret) {
            text = text.replacing(secret, with: "****")
        }
        return text
    }
}

private let logState = Mutex(LogState())

/// Most captured text kept per thread (a failing connection logs a few lines).
private let captureLimit = 4096

private func ffmpegLogCallback(_ object: UnsafeMutableRawPointer?, _ level: Int32, _ format: UnsafePointer<CChar>?,
                               _ arguments: CVaListPointer?) {
    let printLevel = av_log_get_level()
    // Fast path: most calls are debug chatter nobody prints or captures.
    guard level <= max(printLevel, AV_LOG_WARNING), let format, let arguments else { return }
    let thread = UInt(pthread_self())
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 2048) { buffer in
        guard let base = buffer.baseAddress else { return }
        logState.withLock { state in
            base[0] = 0
            _ = av_log_format_line2(object, level, format, arguments, base, Int32(buffer.count), &state.printPrefix)
            let line = state.masked(String(cString: base))
            if let captured = state.captures[thread] {
                if level <= AV_LOG_WARNING, captured.utf8.count < captureLimit { state.captures[thread] = captured + line }
                return
            }
            guard level <= printLevel else { return }
            var bytes = Array(line.utf8)
            bytes.withUnsafeMutableBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(2, raw.baseAddress! + offset, raw.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
        }
    }
}
