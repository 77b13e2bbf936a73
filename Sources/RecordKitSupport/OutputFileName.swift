import Glibc

/// The names RecordKit gives files the user did not name, the way desktop screen recorders
/// name them: `Recording 2025-05-01 at 14.03.22.mp4`, `Replay 2025-05-01 at 14.03.22.mp4`
/// (local time), made unique with ` (2)`, ` (3)`, … where asked. Any thread.
package enum OutputFileName {
    /// `PREFIX YYYY-MM-DD at HH.MM.SS.EXT` for `time`, in local time.
    package static func stamped(_ prefix: String, at time: time_t, extension ext: String) -> String {
        "\(stem(prefix, at: time)).\(ext)"
    }

    /// `stamped` in `directory`, with ` (2)`, ` (3)`, … appended while that name is taken.
    package static func unused(_ prefix: String, in directory: String, at time: time_t, extension ext: String) -> String {
        let base = "\(directory)/\(stem(prefix, at: time))"
        var candidate = "\(base).\(ext)"
        var n = 2
        var info = stat()
        while stat(candidate, &info) == 0 {
            candidate = "\(base) (\(n)).\(ext)"
            n += 1
        }
        return candidate
    }

    private static func stem(_ prefix: String, at time: time_t) -> String {
        var seconds = time
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(prefix) \(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) at "
            + "\(two(parts.tm_hour)).\(two(parts.tm_min)).\(two(parts.tm_sec))"
    }
}
