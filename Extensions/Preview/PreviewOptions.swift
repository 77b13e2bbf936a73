/// Where the preview page listens.
public struct PreviewOptions: Sendable, Hashable {
    /// The TCP port on 127.0.0.1; 0 lets the system choose a free one.
    public var port: UInt16 = 0

    /// Default options: a free port.
    public init(port: UInt16 = 0) { self.port = port }
}
