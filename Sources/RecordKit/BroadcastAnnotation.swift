/// A marker at a moment of the broadcast (`recordctl mark TITLE`), as ReplayKit's
/// `broadcastAnnotated(withApplicationInfo:)`: handlers that keep a timeline (the file, the
/// replay buffer) turn it into a chapter.
public struct BroadcastAnnotation: Sendable, Hashable {
    /// The marker's title ("" when the user gave none; handlers then name it "Chapter N").
    public var title: String
    /// Where the marker is on the broadcast timeline (zero at start, paused spans cut): the
    /// moment it was asked for.
    public var time: MediaTime
    /// Other values the application attached (ReplayKit's `applicationInfo`), by key.
    public var applicationInfo: [String: String]

    /// Creates an annotation.
    public init(title: String, time: MediaTime, applicationInfo: [String: String] = [:]) {
        self.title = title
        self.time = time
        self.applicationInfo = applicationInfo
    }
}
