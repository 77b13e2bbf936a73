import Glibc

/// A failed system call on a path: which operation, on which file, and the `errno` text.
/// Callers wrap it in their own error type; `description` reads as one clause of a message
/// ("cannot rename /a/.b.tmp to /a/b: No space left on device").
package struct FileSystemError: Error, CustomStringConvertible, Sendable {
    /// What was being done: "create", "write", "flush", "rename", "link", "open".
    package let operation: String
    /// The file it was done to.
    package let path: String
    /// The `errno` value (0 for a short write without one).
    package let code: Int32

    /// Captures the current `errno`.
    package init(_ operation: String, _ path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The system's text for ``code``.
    package var reason: String { code == 0 ? "short write" : String(cString: strerror(code)) }

    package var description: String { "cannot \(operation) \(path): \(reason)" }
}
