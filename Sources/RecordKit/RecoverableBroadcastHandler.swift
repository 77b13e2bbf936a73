/// A handler that can turn what it left in its working directory into a usable result after
/// the recorder was killed (`kill -9`, a power cut), as ReplayKit recovers a capture session's
/// content directory.
///
/// The service keeps each recording's ``BroadcastContext/workingDirectory`` until the handler
/// finished normally. When it finds one left by a recorder that died, it calls ``recover(workingDirectory:)``
/// of the extension that wrote it, once, then deletes the directory. Recovery must be safe to
/// run on a half-written directory and must never leave a partial result at the destination
/// (write beside it, `fsync`, then `rename`).
public protocol RecoverableBroadcastHandler: BroadcastSampleHandler {
    /// Recovers the work an interrupted broadcast left in `workingDirectory`; returns the paths
    /// (or URLs) of what it delivered, empty when there was nothing worth keeping. Throws with a
    /// message that says what was lost and where anything left over still is.
    static func recover(workingDirectory: String) throws(BroadcastError) -> [String]
}
