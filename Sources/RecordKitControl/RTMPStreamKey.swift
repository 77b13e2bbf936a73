import Foundation
import Glibc

/// A stream key given apart from its URL, so that it need not appear on a command line (where
/// every local user can read it in `/proc/PID/cmdline`): from a file (`--rtmp-key-file`) or
/// from the environment (`RECORDKIT_RTMP_KEY`, readable only by the same user and root).
///
/// The key is appended to each RTMP URL that has an application but no key
/// (`rtmp://host/live` + `KEY` → `rtmp://host/live/KEY`); a URL that has its own key keeps it.
/// Messages never quote the key.
package enum RTMPStreamKey {
    /// The environment variable that may hold the key.
    package static let environmentVariable = "RECORDKIT_RTMP_KEY"

    /// The key from `file` (its first line, surrounding blanks removed) when given, else from
    /// the environment, else nil. Throws `bad_argument` for an unreadable or empty file, and
    /// returns a warning when the file can be read by other users.
    /// `variable` is the environment variable to read (default ``environmentVariable``); `option`
    /// names the option in messages.
    package static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                             variable: String? = nil, option: String = "the key file")
        throws(ControlError) -> (key: String, warning: String?)? {
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ControlError(.badArgument, "\(option): cannot read \(file): \(String(cString: strerror(errno)))")
            }
            let key = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !key.isEmpty else { throw ControlError(.badArgument, "\(option): \(file) holds no key (its first line is empty)") }
            var st = stat()
            let shared = stat(file, &st) == 0 && st.st_mode & 0o077 != 0
            return (key, shared ? "the key file \(file) can be read by other users (mode \(String(st.st_mode & 0o777, radix: 8))); chmod 600 it" : nil)
        }
        if let key = environment[variable ?? environmentVariable]?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty {
            return (key, nil)
        }
        return nil
    }

    /// `urls` with `key` appended to each one that names an application but no key. Throws
    /// `bad_argument` when no URL takes it (each already has a key, or none is given), so a key
    /// given for nothing is not silently ignored.
    package static func apply(_ key: String, to urls: [String]) throws(ControlError) -> [String] {
        guard !key.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw ControlError(.badArgument, "the RTMP stream key (not shown) contains spaces or '/'")
        }
        var used = false
        let result = urls.map { url -> String in
            guard lacksKey(url) else { return url }
            used = true
            return (url.hasSuffix("/") ? url : url + "/") + key
        }
        guard used else {
            throw ControlError(.badArgument, "a stream key was given (--rtmp-key-file or \(environmentVariable)) but no --rtmp URL takes one: "
                               + "give the URLs without their key, as rtmp://host[:port]/app")
        }
        return result
    }

    /// Whether `url` is `scheme://authority/app` with one path component and no query.
    static func lacksKey(_ url: String) -> Bool {
        guard let sep = url.firstRange(of: "://"), !url.contains("?") else { return false }
        let rest = url[sep.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return false }
        let path = rest[rest.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: true)
        return path.count == 1
    }
}
