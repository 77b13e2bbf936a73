import Glibc

/// Where recordings go when the user names no directory, as the desktop's own screen recorders
/// decide it: `$XDG_VIDEOS_DIR`, else `XDG_VIDEOS_DIR` from `$XDG_CONFIG_HOME/user-dirs.dirs`
/// (default `~/.config`), else `~/Videos`. The file output, replay clips and obs-websocket's
/// record directory all ask here, so they always agree. Reads the environment; any thread.
package enum VideosDirectory {
    /// The videos directory, absolute, without a trailing slash.
    package static func path() -> String {
        let home = homeDirectory()
        if let value = environment("XDG_VIDEOS_DIR"), value.hasPrefix("/") { return trimmed(value) }
        let configHome = environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        if let text = readSmallFile(configHome + "/user-dirs.dirs"), let value = parseUserDirs(text, key: "XDG_VIDEOS_DIR", home: home) {
            return value
        }
        return (home == "/" ? "" : home) + "/Videos"
    }

    /// `XDG_VIDEOS_DIR="$HOME/Movies"` → `/home/me/Movies`. Only the two forms the
    /// xdg-user-dirs format allows (`"$HOME/…"` and `"/absolute"`); the home directory itself
    /// means "not set" there, so it yields nil.
    package static func parseUserDirs(_ text: String, key: String, home: String) -> String? {
        for rawLine in text.split(whereSeparator: { $0 == "\n" }) {
            let line = rawLine.trimmingWhitespace()
            guard !line.hasPrefix("#"), line.hasPrefix(key + "=") else { continue }
            var value = String(line.dropFirst(key.count + 1))
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if value == "$HOME" || value == "$HOME/" { return nil }
            if value.hasPrefix("$HOME/") { value = home + String(value.dropFirst("$HOME".count)) }
            guard value.hasPrefix("/") else { return nil }
            return trimmed(value)
        }
        return nil
    }

    /// `$HOME`, else the password database's home directory, else `/`; without a trailing slash.
    package static func homeDirectory() -> String {
        if let home = environment("HOME"), home.hasPrefix("/") { return trimmed(home) }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return trimmed(String(cString: dir)) }
        return "/"
    }

    private static func trimmed(_ path: String) -> String {
        var value = path
        while value.count > 1, value.hasSuffix("/") { value.removeLast() }
        return value
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    /// The substring without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" || first == "\r" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" || last == "\r" { result = result.dropLast() }
        return result
    }
}
