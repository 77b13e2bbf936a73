/// Splits file paths without touching the file system.
enum PathName {
    /// The directory part of `path`: `/a/b.mp4` → `/a`, `/b.mp4` → `/`, `b.mp4` → `.`.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`: `/a/b.mp4` → `b.mp4`.
    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
