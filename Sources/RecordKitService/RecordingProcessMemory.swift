import CShims

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
/// A library embedding the recorder keeps its host's policy: only the recording executables call
/// this, first thing.
public enum RecordingProcessMemory {
    /// Opts this process and its children out of transparent huge pages; returns false (and
    /// changes nothing) where the kernel does not support it.
    @discardableResult
    public static func disableTransparentHugePages() -> Bool {
        cshim_disable_transparent_huge_pages() == 0
    }
}
