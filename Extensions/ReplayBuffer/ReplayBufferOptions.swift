/// How much a replay buffer keeps and where its clips go.
package struct ReplayBufferOptions: Sendable, Hashable {
    /// Seconds of recorded time (paused time excluded) the buffer covers; it keeps at most one
    /// group of pictures more, because it drops whole groups from the front.
    package var seconds: Double = 30
    /// The most bytes of encoded media held; beyond it whole groups of pictures are dropped from
    /// the front (one group is always kept).
    package var maxBytes: Int = 512 * 1_048_576
    /// Where clips go when a save names no file; nil: the videos directory.
    package var directory: String?

    /// Default options: 30 s, 512 MiB, clips in the videos directory.
    package init(seconds: Double = 30, maxBytes: Int = 512 * 1_048_576, directory: String? = nil) {
        self.seconds = seconds
        self.maxBytes = maxBytes
        self.directory = directory
    }
}
