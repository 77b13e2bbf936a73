import RecordKit
import RecordKitControl

/// One handler within a ``RecordingSnapshot``, and what ``Recorder/stop(reason:)`` returns for it.
package struct HandlerRunReport: Sendable {
    /// The name the handler was added under (e.g. "file").
    package var name: String
    /// Running, failed or finished.
    package var state: HandlerState
    /// The error that ended it, if any.
    package var error: String?
    /// What it published through `BroadcastContext.publish(serviceInfo:)`.
    package var serviceInfo: [String: String]
    /// Its delivery counters (a queue-owning handler's own queue counts included).
    package var statistics: HandlerCounts
    /// True while this output alone is paused (``Recorder/pauseOutput(_:)``); nil otherwise.
    package var paused: Bool?

    /// A report of these values.
    package init(name: String, state: HandlerState, error: String?, serviceInfo: [String: String], statistics: HandlerCounts,
                 paused: Bool? = nil) {
        self.paused = paused
        self.name = name
        self.state = state
        self.error = error
        self.serviceInfo = serviceInfo
        self.statistics = statistics
    }
}
