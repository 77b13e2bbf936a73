/// A handler that carries out named actions while the broadcast runs: `recordctl save-replay`
/// is the action `save-replay`, performed by whichever handler of the recording declares it (the
/// replay buffer). The service and the recorder forward an action by its name only, so they
/// never name a concrete handler.
///
/// Threading: ``perform(action:arguments:completion:)`` is a serial call like the others: it
/// runs on the handler's own queue, after every sample delivered before the request and before
/// any later one, so the handler reads its state without locks. It must return quickly (a
/// recording's samples wait behind it): take what the action needs (references to samples are
/// cheap) and do slow work, such as writing a file, on a thread of the handler's own, then call
/// `completion` exactly once, from any thread.
public protocol BroadcastActionHandler: BroadcastSampleHandler {
    /// The action names this handler performs (`"save-replay"`). Read once, before
    /// ``BroadcastSampleHandler/broadcastStarted(setupInfo:context:)``.
    var supportedActions: Set<String> { get }

    /// Performs `action` with `arguments` (string values, as the action documents them, plus
    /// ``BroadcastActionArguments/requestTime`` added by the recorder) and
    /// calls `completion` once with its result (`"path"` of a file written, …) or an error that
    /// says what failed. Only called between `broadcastStarted` and `broadcastFinished`.
    func perform(action: String, arguments: [String: String],
                 completion: @escaping @Sendable (Result<[String: String], BroadcastError>) -> Void)
}

/// Arguments the recorder adds to every action.
public enum BroadcastActionArguments {
    /// The broadcast time at which the action was asked for, in nanoseconds (decimal): a handler
    /// that works on recent media (the replay buffer) waits until its samples reach it, since
    /// encoders deliver about half a second late.
    public static let requestTime = "requestTime"
}
