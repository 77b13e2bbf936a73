import Foundation
import Glibc
import RecordKitControl

/// Writes to the terminal with `write(2)`, which Swift 6 allows from any thread.
package enum Console {
    /// Writes one line to standard error.
    package static func error(_ message: String) { write(2, "recordctl: " + message + "\n") }
    /// Writes one line to standard output.
    package static func out(_ message: String) { write(1, message + "\n") }
    /// Writes help text to standard output as is: text the program and the manifests wrote, which
    /// holds example URLs (`rtmp://host/app`) and never a secret, so nothing is masked.
    package static func help(_ text: String) { write(1, text + "\n", redacting: false) }
    /// Writes raw text to standard error (for the live status line).
    package static func status(_ text: String) { write(2, text) }
    /// Writes `value` to standard output as pretty-printed JSON with sorted keys (the `--json`
    /// form of every listing and of `status`).
    package static func json(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        out(String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self))
    }
    /// Whether standard error is a terminal.
    package static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Writes `text` with every URL's secrets masked (``SecretRedactor``).
    private static func write(_ fd: Int32, _ text: String, redacting: Bool = true) {
        var text = redacting ? SecretRedactor.redact(text) : text
        text.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return }
                off += n
            }
        }
    }
}
