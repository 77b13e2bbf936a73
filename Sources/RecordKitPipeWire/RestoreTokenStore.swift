import Glibc
import RecordKitSupport

/// Where the ScreenCast portal's restore token is kept between recordings, so that the next
/// recording starts without asking the user again: `$XDG_STATE_HOME/recordkit/portal-restore-token`
/// (default `~/.local/state`), the directory 0700 and the file 0600, written atomically.
///
/// The token is a capability: it is never logged or shown. Blocking file I/O; any thread.
struct RestoreTokenStore {
    let path: String

    /// The store of this user (nil without `XDG_STATE_HOME` or `HOME`).
    static func user() -> RestoreTokenStore? {
        let env = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        guard let base = env("XDG_STATE_HOME") ?? env("HOME").map({ $0 + "/.local/state" }) else { return nil }
        return RestoreTokenStore(path: base + "/recordkit/portal-restore-token")
    }

    /// The token saved last, or nil.
    func load() -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let token = String(cBuffer: buffer).filter { !$0.isWhitespace }
        return token.isEmpty ? nil : token
    }

    /// Saves `token` readable by this user only; a failure only costs a new selection next time.
    func save(_ token: String) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        makeDirectories(directory)
        try? AtomicFile.write(Array((token + "\n").utf8), to: path)
    }

    private func makeDirectories(_ directory: String) {
        var prefix = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            mkdir(prefix, 0o700)
        }
    }
}
