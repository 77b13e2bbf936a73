/// Receives a broadcast, as ReplayKit's `RPBroadcastSampleHandler`.
///
/// Threading contract: the pipeline calls a handler serially. No call starts before the
/// previous one returned, calls are never reordered, ``broadcastStarted(setupInfo:context:)``
/// comes first and ``broadcastFinished()`` exactly once and last. Samples of one type arrive with
/// non-decreasing ``SampleBuffer/timelineTime``. A handler therefore owns its state without
/// locks. Calls run on a thread of the handler's own, never on Swift's cooperative pool, so a
/// handler may block (write a file, send to a socket); while it does, its queue fills and, past
/// its bound, video is dropped for it alone (and counted), while capture and other handlers
/// go on.
public protocol BroadcastSampleHandler: AnyObject {
    /// The input this handler wants. Read once, before ``broadcastStarted(setupInfo:context:)``.
    var input: HandlerInput { get }

    /// The broadcast starts. `setupInfo` holds the user's setup values; `context` lets the
    /// handler publish results or end its broadcast. Throwing here refuses the broadcast
    /// before any sample is delivered (for example, an unwritable output path).
    func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws

    /// One sample of the type given by `type` (equal to `sampleBuffer.type`).
    func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType)

    /// The broadcast paused. No sample arrives until ``broadcastResumed()``; broadcast time
    /// continues afterwards where it stopped.
    func broadcastPaused()

    /// The broadcast resumed after ``broadcastPaused()``.
    func broadcastResumed()

    /// A marker was added (`recordctl mark`). Serial like the other calls, queued behind every
    /// sample released before it was asked for; as with ``broadcastPaused()``, a few encoded
    /// frames captured just before it may still follow (the encoder's delay), so place it by
    /// ``BroadcastAnnotation/time``, not by arrival.
    func broadcastAnnotated(_ annotation: BroadcastAnnotation)

    /// The broadcast ended (stopped, discarded, failed, or this handler ended itself). Finalize
    /// and release everything here; nothing is called afterwards.
    func broadcastFinished()
}

extension BroadcastSampleHandler {
    /// Default: nothing to do on pause.
    public func broadcastPaused() {}
    /// Default: nothing to do on resume.
    public func broadcastResumed() {}
    /// Default: markers are ignored.
    public func broadcastAnnotated(_ annotation: BroadcastAnnotation) {}
}
