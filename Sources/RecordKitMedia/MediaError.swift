import CFFmpeg

/// An error from the media layer (encoding, muxing, remuxing).
///
/// ``message`` says what failed, with what input, and ends with FFmpeg's own explanation
/// (`av_strerror`), for example `opening output /tmp/a.mp4 failed: Permission denied`.
/// ``reason`` holds that explanation alone, so callers can phrase their own message around it
/// (`writing /tmp/a.mp4 failed: No space left on device`).
package struct MediaError: Error, Sendable, CustomStringConvertible {
    /// What failed, with what input, and why.
    package var message: String
    /// FFmpeg's or the system's explanation of the failure (`No space left on device`), when the
    /// failure came from an FFmpeg or system call; nil for errors the media layer detected itself.
    package var reason: String?
    /// The FFmpeg error code (a negative `AVERROR` value; `-errno` for system errors), or nil.
    package var code: Int32?

    /// Creates an error with a complete message and no FFmpeg code.
    package init(_ message: String) {
        self.message = message
        self.reason = nil
        self.code = nil
    }

    /// Creates an error for a failed FFmpeg call: `"<what> failed: <av_strerror(code)>"`.
    package init(_ what: String, code: Int32) {
        let text = MediaError.describe(code)
        self.message = "\(what) failed: \(text)"
        self.reason = text
        self.code = code
    }

    /// The message.
    package var description: String { message }

    /// FFmpeg's text for an error code (`av_strerror`).
    static func describe(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(AV_ERROR_MAX_STRING_SIZE)) { buffer in
            guard let base = buffer.baseAddress else { return "error \(code)" }
            if av_strerror(code, base, buffer.count) < 0 { return "error \(code)" }
            return String(cString: base)
        }
    }
}
