import Glibc

/// Writes `s` to standard output whole (the tests read the window id and the flash times from it).
func writeOut(_ s: String) {
    var s = s
    s.withUTF8 { buf in
        var off = 0
        while off < buf.count {
            let n = write(1, buf.baseAddress! + off, buf.count - off)
            if n <= 0 { break }
            off += n
        }
    }
}

/// Writes `rk-testwindow: message` to standard error.
func writeErr(_ message: String) {
    let line = "rk-testwindow: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Says `message` on standard error and exits with `code` (64, 69 or 70).
func fail(_ message: String, code: Int32) -> Never {
    writeErr(message)
    exit(code)
}
