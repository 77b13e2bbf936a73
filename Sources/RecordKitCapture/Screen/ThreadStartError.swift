import Glibc

/// `pthread_create` failed (out of threads or memory).
struct ThreadStartError: Error, CustomStringConvertible {
    /// The error number `pthread_create` returned (`EAGAIN`, …).
    let code: Int32
    /// `strerror` text with the number.
    var description: String { "\(String(cString: strerror(code))) (errno \(code))" }
}
