import Glibc

/// A self-pipe that wakes the monitor thread out of `poll` when `stop()` is called, so stopping
/// does not wait for the rest of a poll interval.
final class BackgroundWakePipe: @unchecked Sendable {
    /// The end to poll for reading.
    let readEnd: Int32
    private let writeEnd: Int32

    /// A non-blocking, close-on-exec pipe; nil if the process is out of descriptors.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Makes `readEnd` readable. Safe from any thread; never blocks.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe (after `poll` reported it readable).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}
