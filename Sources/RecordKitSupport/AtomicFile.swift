import Glibc

/// The one way RecordKit makes a file appear whole or not at all: the content goes to a
/// temporary file beside the destination, which is `fsync`ed, then renamed (or hard-linked,
/// when an existing file must not be replaced) into place, and the directory is `fsync`ed so
/// that the new name survives a power cut. A `kill -9` at any moment leaves the old file or
/// the new one, never half of one. Stateless; any thread.
package enum AtomicFile {
    /// Writes `bytes` to `path`, replacing it, with `permissions` (0600 by default: journals,
    /// tokens and settings are private). The temporary file is `.NAME.tmp-PID` beside `path`,
    /// removed on failure.
    package static func write(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o600) throws(FileSystemError) {
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, permissions)
        guard fd >= 0 else { throw FileSystemError("create", temporary) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = FileSystemError("write", temporary, code: n < 0 ? errno : 0)
                close(fd)
                unlink(temporary)
                throw error
            }
            written += n
        }
        // The mode asked for, whatever the umask made of it.
        fchmod(fd, permissions)
        if fsync(fd) != 0 {
            let error = FileSystemError("flush", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        do {
            try publish(temporary: temporary, as: path, replacing: true)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Makes the finished file at `temporary` appear as `destination` (same directory or at
    /// least the same file system): `fsync`s it, renames it (or, without `replacing`, links it,
    /// which fails with `EEXIST` on an existing name, and unlinks the temporary name), then
    /// `fsync`s the destination's directory. On failure nothing at `destination` changed.
    package static func publish(temporary: String, as destination: String, replacing: Bool) throws(FileSystemError) {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError("open", temporary) }
        let synced = fsync(fd)
        let syncError = errno
        close(fd)
        guard synced == 0 else { throw FileSystemError("flush", temporary, code: syncError) }
        if replacing {
            guard rename(temporary, destination) == 0 else { throw FileSystemError("rename \(temporary) to", destination) }
        } else {
            guard link(temporary, destination) == 0 else { throw FileSystemError("create", destination) }
            unlink(temporary)
        }
        syncDirectory(containing: destination)
    }

    /// `fsync`s the directory that holds `path`, so that a rename or a new name in it is
    /// durable. Best effort: some file systems refuse to sync a directory.
    package static func syncDirectory(containing path: String) {
        let fd = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a file at the root).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `.NAME.tmp-PID` beside `path`: hidden, and never shared by two processes.
    static func temporaryPath(for path: String) -> String {
        let dir = directory(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        return (dir == "/" ? "" : dir) + "/.\(name).tmp-\(getpid())"
    }
}
