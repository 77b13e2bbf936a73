import CShims
import Foundation
import RecordKitSupport

/// The memory policy of a process that records (`recordd`, `recordctl record`).
///
/// **No transparent huge pages.** With THP on ("always" or "madvise": libx264 asks for huge
/// pages on its large buffers), the kernel meets the first touch of each 2 MB region by zeroing
/// all of it at once, in the thread that touched it: the encoder, mid-frame. On this project's
/// machines (VMs, whose fresh memory is also faulted in by the host) that zeroing was 0.05–0.69 s
/// of a 15 s recording's kernel time, the main cause of its run-to-run spread. Opted out, the
/// same recording touches 4 KB pages as it uses them. Measured A/B, four rounds alternating,
/// 12 s of 1080p30 file + RTMP: system time 0.99 → 0.47 s, user time 10.04 → 10.25 s (more TLB
/// misses), total −3 %, and every frame kept (361 of 361 against 357–361 with THP), as
/// docs/ENCODING.md, "Transparent huge pages", records. Databases and other latency-sensitive
/// servers make the same choice for the same reason.
///
/// **Freed memory goes back to the kernel.** glibc's malloc keeps what a thread frees in that
/// thread's arena for reuse, and a recorder frees in other threads than it allocates (encoded
/// packets are allocated by the encoder's threads and freed by the file writer, the RTMP
/// sender and the replay buffer's trimming, in sizes from a few bytes to a key frame's hundreds
/// of KB). Measured (docs/BENCHMARKS.md, "Memory over time"): a 1080p file + RTMP +
/// 60 s replay buffer grew from 281 to 347 MB between minute 2.5 and minute 5.5 after the
/// replay buffer had filled, in new and growing arenas (27 threads under load, 16 arenas
/// allowed on 2 cores); `malloc_trim(0)` called from a debugger then gave back 38 MB at once.
/// So the recording processes allow 4 arenas and return free pages every 30 s
/// (``returnFreedMemoryPeriodically()``).
///
/// **Large blocks are mapped, always.** glibc maps a block of 128 KB or more on its own and
/// unmaps it when freed, but each such free raises that threshold to the block's size (up to
/// 32 MB), after which buffers that grow and go away (a fragment's media data, an index array
/// doubling, a key frame's packet) are carved from the arenas between long-lived blocks and leave
/// holes there. Measured with the soak benchmark (docs/BENCHMARKS.md, "The hour with a fixed
/// threshold"), the arenas' resident memory then crept up a few MB every few minutes. The
/// threshold is fixed at 128 KB (glibc's starting value), which also stops its raising.
///
/// A library embedding the recorder keeps its host's policy: only the recording executables call
/// this, first thing.
package enum RecordingProcessMemory {
    /// The thread of ``returnFreedMemoryPeriodically()``; set once, from the main thread, at start.
    nonisolated(unsafe) private static var trimThread: RepeatingThread?

    /// Allows at most 4 malloc arenas (glibc's default is 8 per core), fixes the threshold for
    /// blocks of their own mapping at 128 KB, and starts a timer that
    /// gives every arena's free pages back to the kernel every `seconds` seconds (malloc_trim, a
    /// few milliseconds each, on the thread `rk-malloc-trim`: one thread for the process's life,
    /// where a Dispatch timer took a pool worker each time and left the thread count varying).
    /// Call once, first thing, before threads start.
    ///
    /// With `RK_MALLOC_LOG=PATH` in the environment, each trim appends one line to PATH: seconds
    /// since the start, then the bytes malloc's callers hold, the bytes the arenas hold free, and
    /// the part of the held bytes in chunks of their own mapping (`mallinfo2`). The soak benchmark
    /// reads it to tell memory the recorder holds from memory malloc keeps.
    package static func returnFreedMemoryPeriodically(every seconds: Int = 30,
                                                      environment: [String: String] = ProcessInfo.processInfo.environment) {
        _ = cshim_limit_malloc_arenas(4)
        mapLargeBlocks()
        guard trimThread == nil else { return }
        let log = environment["RK_MALLOC_LOG"].flatMap { fopen($0, "a") }.map(UncheckedFile.init)
        let started = MonotonicClock.seconds()
        trimThread = RepeatingThread(name: "rk-malloc-trim", firstAfterSeconds: Double(seconds), everySeconds: Double(seconds)) {
            _ = cshim_malloc_trim()
            guard let log else { return }
            var inUse: UInt64 = 0, free: UInt64 = 0, mapped: UInt64 = 0
            cshim_malloc_usage(&inUse, &free, &mapped)
            let line = String(format: "%.1f %llu %llu %llu\n", MonotonicClock.seconds() - started, inUse, free, mapped)
            fputs(line, log.file)
            fflush(log.file)
        }
    }

    /// Blocks of 128 KB or more get a mapping of their own from now on, however large the blocks
    /// freed before (the threshold is fixed: glibc no longer raises it). Returns false when
    /// glibc refused.
    @discardableResult
    package static func mapLargeBlocks() -> Bool {
        cshim_fix_malloc_mmap_threshold(128 * 1024) == 1
    }

    /// The log's `FILE *`, written by the trim thread only.
    private struct UncheckedFile: @unchecked Sendable {
        let file: UnsafeMutablePointer<FILE>
    }

    /// Opts this process and its children out of transparent huge pages; returns false (and
    /// changes nothing) where the kernel does not support it.
    @discardableResult
    package static func disableTransparentHugePages() -> Bool {
        cshim_disable_transparent_huge_pages() == 0
    }
}
