/// A handler that owns the one queue and the one drop policy of its output (a live stream: a
/// slow network must lose whole groups of pictures in one place, by one rule).
///
/// The pipeline hands such a handler every sample and lifecycle call directly, on the thread
/// that releases it, one call at a time and in order (the serial contract holds), instead of
/// queueing them behind a bound of its own. So every call must return at once: it may only
/// append to the handler's own queue, under a lock, and wake the handler's thread. The
/// exceptions are ``BroadcastSampleHandler/broadcastStarted(setupInfo:context:)`` and
/// ``BroadcastSampleHandler/broadcastFinished()``, which the pipeline calls as for any
/// handler (the latter on a queue of its own, after which nothing more is delivered).
///
/// The pipeline's status and metrics report the handler's own counts (``queueCounts``): what
/// it dropped is counted once, where it was dropped.
package protocol QueueOwningHandler: BroadcastSampleHandler {
    /// What the handler's queue holds and has dropped so far (``HandlerCounts/droppedVideo``,
    /// ``HandlerCounts/droppedAudio``, ``HandlerCounts/queued``, ``HandlerCounts/queueHighWater``;
    /// the pipeline counts what it delivered); read from any thread.
    var queueCounts: HandlerCounts { get }
}
