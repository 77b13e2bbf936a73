import Glibc

/// `pthread_create` failed (out of threads or memory).
package struct ThreadStartError: Error, CustomStringConvertible {
    /// The error number `pthread_create` returned (`EAGAIN`, …).
    let code: Int32
    /// `strerror` text with the number.
    package var description: String { "\(String(cString: strerror(code))) (errno \(code))" }
}
