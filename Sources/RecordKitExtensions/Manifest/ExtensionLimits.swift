/// What the host allows an out-of-process extension (the manifest's `limits`). Built-in
/// extensions run inside the recorder and are not limited.
package struct ExtensionLimits: Sendable, Equatable {
    /// Private (anonymous) resident memory allowed, in MiB; the process is killed beyond it.
    /// Shared frame memory mapped from the host does not count.
    package var memoryMB: Int
    /// Time allowed for `processSampleBuffer`, `broadcastPaused` and `broadcastResumed`, in ms.
    package var callTimeoutMs: Int
    /// Time allowed for the handshake, `broadcastStarted` and `broadcastFinished`, in ms.
    package var lifecycleTimeoutMs: Int

    /// Allowed ranges, as docs/extension-manifest.schema.json states them.
    package static let memoryRange: ClosedRange<Int64> = 16...65_536
    /// Allowed range of ``callTimeoutMs``: long enough for real work, short enough that audio
    /// (bounded at about 6 s per handler) never overruns while the host waits.
    package static let callTimeoutRange: ClosedRange<Int64> = 10...5_000
    /// Allowed range of ``lifecycleTimeoutMs``.
    package static let lifecycleTimeoutRange: ClosedRange<Int64> = 100...300_000

    /// Creates limits; the defaults are 256 MiB, 1 s per call and 10 s for start and finish.
    package init(memoryMB: Int = 256, callTimeoutMs: Int = 1_000, lifecycleTimeoutMs: Int = 10_000) {
        self.memoryMB = memoryMB
        self.callTimeoutMs = callTimeoutMs
        self.lifecycleTimeoutMs = lifecycleTimeoutMs
    }
}
