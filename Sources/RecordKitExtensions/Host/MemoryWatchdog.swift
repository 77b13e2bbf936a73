import Dispatch
import Glibc
import Synchronization

/// Polls an extension's private resident memory (`RssAnon` of `/proc/<pid>/status`) and calls
/// `onExceeded` once when it goes over the limit.
///
/// Private memory is what the process allocated itself; the shared frame memory it maps from
/// the host is not counted (it is the host's, and the same for every extension).
final class MemoryWatchdog: @unchecked Sendable {  // the timer is only resumed and cancelled
    private let timer: DispatchSourceTimer
    /// How often the memory is read.
    static let interval: DispatchTimeInterval = .milliseconds(50)

    /// Starts watching `pid` against `limitMB`.
    init(pid: pid_t, limitMB: Int, onExceeded: @escaping @Sendable (_ usedMB: Int) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "recordkit.extension.memory.\(pid)"))
        let path = "/proc/\(pid)/status"
        let limitKB = limitMB * 1024
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        let fired = Atomic<Bool>(false)
        timer.setEventHandler {
            guard let kb = Self.privateResidentKB(path), kb > limitKB else { return }
            if !fired.exchange(true, ordering: .relaxed) { onExceeded(kb / 1024) }
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops watching.
    func stop() { timer.cancel() }

    /// `RssAnon` in KiB, or nil when the process is gone.
    static func privateResidentKB(_ path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let key = Array("RssAnon:".utf8)
        var i = 0
        while i + key.count < n {
            if (i == 0 || buffer[i - 1] == 0x0A) && buffer[i..<(i + key.count)].elementsEqual(key) {
                var j = i + key.count
                while j < n, buffer[j] == 0x20 || buffer[j] == 0x09 { j += 1 }
                var kb = 0
                while j < n, (0x30...0x39).contains(buffer[j]) { kb = kb * 10 + Int(buffer[j] - 0x30); j += 1 }
                return kb
            }
            i += 1
        }
        return nil
    }
}
