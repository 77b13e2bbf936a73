import Foundation
import Glibc
import RecordKitDigest

/// What a local file was when its upload began: size, modification time, inode and a SHA-256
/// of its first and last MiB. Hashing the whole file first would read it twice; every part's
/// MD5 is checked by the server anyway, and size + mtime + inode catch an appended, truncated or
/// replaced file. Checked before each part is read and before the upload completes.
package struct FileIdentity: Codable, Sendable, Equatable {
    package var size: Int64
    package var mtimeNanoseconds: Int64
    package var inode: UInt64
    package var edgeHash: String

    /// Reads the identity of `path` (called on the upload thread: it reads up to 2 MiB).
    package static func of(_ path: String) throws(UploadError) -> FileIdentity {
        let st = try Self.stat(path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UploadError(.fileChanged, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let hash = SHA256()
        let edge = Int64(1 << 20)
        var buffer = [UInt8](repeating: 0, count: Int(edge))
        for start in Set([Int64(0), max(0, Int64(st.st_size) - edge)]).sorted() {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(edge), off_t(start)) }
            if n > 0 { hash.update(data: buffer[0..<n]) }
        }
        return FileIdentity(size: Int64(st.st_size), mtimeNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                            inode: UInt64(st.st_ino), edgeHash: SigV4Signer.hex(hash.finalize()))
    }

    /// Throws `fileChanged` when `path` is gone or its size, mtime or inode differ (cheap: one stat).
    package func check(_ path: String) throws(UploadError) {
        let st = try Self.stat(path)
        let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        if Int64(st.st_size) != size || mtime != mtimeNanoseconds || UInt64(st.st_ino) != inode {
            throw UploadError(.fileChanged, "\(path) changed while it was being uploaded (size \(size) -> \(st.st_size) bytes, or modified or replaced); "
                              + "nothing was completed on the server: upload it again once it is final")
        }
    }

    private static func stat(_ path: String) throws(UploadError) -> stat {
        var st = Glibc.stat()
        guard fstatat(AT_FDCWD, path, &st, 0) == 0 else {
            throw UploadError(.fileChanged, "\(path) is gone (\(String(cString: strerror(errno)))): nothing left to upload")
        }
        guard st.st_mode & S_IFMT == S_IFREG else { throw UploadError(.fileChanged, "\(path) is not a regular file") }
        return st
    }
}
