import Glibc

/// Text of a system error number (`strerror`), for messages.
enum SystemError {
    /// The text of `code` ("No space left on device").
    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The text of the current `errno`.
    static var current: String { text(errno) }
}
