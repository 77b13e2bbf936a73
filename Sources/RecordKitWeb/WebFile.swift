#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// A file response's body, opened and sized off the event loop, with its Range resolved
/// (``ByteRange``). Owns the descriptor until ``close()``.
struct WebFile: Sendable {
    /// What to send.
    enum Outcome: Sendable {
        /// This region of the file; `partial` is the `Content-Range` value of a 206.
        case send(FileRegion, partial: String?)
        /// 416, for a file of this size.
        case unsatisfiable(size: Int64)
        /// 404: the file cannot be opened, or is not a regular file.
        case missing
    }

    let outcome: Outcome
    private let handle: NIOFileHandle?

    /// Opens the file of `response` (nil when its body is bytes) and resolves `range` against it.
    static func open(response: WebResponse, range: String?, loop: any EventLoop) async -> WebFile? {
        guard case .file(let path) = response.body else { return nil }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return WebFile(outcome: .missing, handle: nil) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(descriptor)
            return WebFile(outcome: .missing, handle: nil)
        }
        let size = Int64(info.st_size)
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        switch ByteRange.resolve(range, size: size) {
        case .whole:
            return WebFile(outcome: .send(FileRegion(fileHandle: handle, readerIndex: 0, endIndex: Int(size)), partial: nil), handle: handle)
        case .partial(let first, let last):
            // first <= last < size (ByteRange's promise), so last + 1 cannot overflow.
            let region = FileRegion(fileHandle: handle, readerIndex: Int(first), endIndex: Int(last) + 1)
            return WebFile(outcome: .send(region, partial: "bytes \(first)-\(last)/\(size)"), handle: handle)
        case .unsatisfiable:
            try? handle.close()
            return WebFile(outcome: .unsatisfiable(size: size), handle: nil)
        }
    }

    /// Closes the descriptor (once the response is written or abandoned).
    func close() {
        try? handle?.close()
    }
}
