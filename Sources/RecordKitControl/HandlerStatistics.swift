/// Counters of one handler's delivery queue, as `recordctl status` shows them.
package struct HandlerStatistics: Sendable, Codable, Equatable {
    /// Samples handed to the handler (returned from `processSampleBuffer`).
    package var delivered: Int64 = 0
    /// Video samples dropped because the handler's queue was full.
    package var droppedVideo: Int64 = 0
    /// Bytes of samples delivered.
    package var bytesDelivered: Int64 = 0
    /// The most samples ever waiting in the queue at once.
    package var queueHighWater: Int = 0
    /// Samples waiting now.
    package var queued: Int = 0

    /// Zero counters.
    package init() {}
}

/// The state of one handler within a recording.
package enum HandlerState: String, Sendable, Codable {
    /// Receiving samples.
    case running
    /// Ended by its own error or an overrun; the recording goes on without it.
    case failed
    /// `broadcastFinished()` has returned.
    case finished
}

/// A snapshot of one handler, for status output.
package struct HandlerSnapshot: Sendable, Codable {
    /// The name the handler was added under (e.g. "file").
    package var name: String
    /// Its state.
    package var state: HandlerState
    /// The error that ended it, if any.
    package var error: String?
    /// What it published through `BroadcastContext.publish(serviceInfo:)`.
    package var serviceInfo: [String: String]
    /// Its counters.
    package var statistics: HandlerStatistics
    /// True while this output alone is paused (`recordctl pause ID`: the capture and the other
    /// outputs go on); nil otherwise and from a service older than this field.
    package var paused: Bool?

    /// Creates a snapshot.
    package init(name: String, state: HandlerState, error: String?, serviceInfo: [String: String], statistics: HandlerStatistics,
                 paused: Bool? = nil) {
        self.paused = paused
        self.name = name
        self.state = state
        self.error = error
        self.serviceInfo = serviceInfo
        self.statistics = statistics
    }
}
