/// Counters of one handler's delivery queue, as `recordctl status` shows them.
public struct HandlerStatistics: Sendable, Codable, Equatable {
    /// Samples handed to the handler (returned from `processSampleBuffer`).
    public var delivered: Int64 = 0
    /// Video samples dropped because the handler's queue was full.
    public var droppedVideo: Int64 = 0
    /// Bytes of samples delivered.
    public var bytesDelivered: Int64 = 0
    /// The most samples ever waiting in the queue at once.
    public var queueHighWater: Int = 0
    /// Samples waiting now.
    public var queued: Int = 0

    /// Zero counters.
    public init() {}
}

/// The state of one handler within a recording.
public enum HandlerState: String, Sendable, Codable {
    /// Receiving samples.
    case running
    /// Ended by its own error or an overrun; the recording goes on without it.
    case failed
    /// `broadcastFinished()` has returned.
    case finished
}

/// A snapshot of one handler, for status output.
public struct HandlerSnapshot: Sendable, Codable {
    /// The name the handler was added under (e.g. "file").
    public var name: String
    /// Its state.
    public var state: HandlerState
    /// The error that ended it, if any.
    public var error: String?
    /// What it published through `BroadcastContext.publish(serviceInfo:)`.
    public var serviceInfo: [String: String]
    /// Its counters.
    public var statistics: HandlerStatistics

    /// Creates a snapshot.
    public init(name: String, state: HandlerState, error: String?, serviceInfo: [String: String], statistics: HandlerStatistics) {
        self.name = name
        self.state = state
        self.error = error
        self.serviceInfo = serviceInfo
        self.statistics = statistics
    }
}
