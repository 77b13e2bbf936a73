/// A request a handler makes of the whole recording, with the same effect as the `recordctl`
/// verb of the same name.
public enum BroadcastControlRequest: String, Sendable, Hashable, CaseIterable {
    /// Pause the recording (reason "user").
    case pause
    /// Resume a paused recording.
    case resume
    /// Stop the recording and finalize every handler.
    case stop
    /// Stop the recording and delete everything it wrote.
    case discard
    /// Switch the microphone off: its track records silence, with no gap (`recordctl mic off`).
    case micOff = "mic-off"
    /// Switch the microphone back on (`recordctl mic on`).
    case micOn = "mic-on"
    /// Switch the camera off: its corner (or its track) shows nothing from now on (`recordctl camera off`).
    case cameraOff = "camera-off"
    /// Switch the camera back on (`recordctl camera on`).
    case cameraOn = "camera-on"
}

/// What a recording lets a handler see and do beyond its own broadcast: the recording's
/// status and the user's controls, for a handler that shows them to the user (the preview
/// page). A host that offers this passes a ``BroadcastContext`` that also conforms to it, so a
/// handler asks with `context as? BroadcastControlling`; hosts that do not (an out-of-process
/// extension today) simply don't conform.
///
/// Threading: any thread, including from inside a handler call.
public protocol BroadcastControlling: Sendable {
    /// The recording's status as a JSON object: the document `recordctl status --json` shows
    /// under `recording.recorder` (state, pause reason, recorded seconds, capture counters,
    /// audio offsets and levels, every handler's state and published service info). Cheap: a
    /// snapshot taken under a short lock.
    func recordingStatusJSON() -> [UInt8]

    /// Asks the recording's owner (the service, or `recordctl record`) to carry out `request`
    /// exactly as the `recordctl` verb would. Returns at once: the request runs on another
    /// thread, because stop and discard call this handler's own ``BroadcastSampleHandler/broadcastFinished()``.
    /// `completion` is called once, from any thread, with nil when it was carried out or an
    /// error that says why not ("not paused").
    func requestControl(_ request: BroadcastControlRequest, completion: @escaping @Sendable (BroadcastError?) -> Void)
}
