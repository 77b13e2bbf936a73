/// Counters of one handler's delivery: what reached it, and what its queue dropped and holds.
/// The pipeline keeps them for every handler (``QueueOwningHandler``s report the queue part of
/// their own); the service shows them as the status's handler statistics. Samples, since the start.
package struct HandlerCounts: Sendable, Equatable {
    /// Samples handed to the handler (returned from `processSampleBuffer`).
    package var delivered: Int64 = 0
    /// Bytes of the samples delivered.
    package var bytesDelivered: Int64 = 0
    /// Video samples dropped (never delivered, or never sent by a handler that owns its queue).
    package var droppedVideo: Int64 = 0
    /// Audio samples dropped (only a handler that owns its queue drops audio: a live stream's
    /// whole groups of pictures).
    package var droppedAudio: Int64 = 0
    /// Samples waiting now.
    package var queued: Int = 0
    /// The most samples that waited at once.
    package var queueHighWater: Int = 0

    /// All zero.
    package init() {}
}
