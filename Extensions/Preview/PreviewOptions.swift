/// Where the preview page listens.
package struct PreviewOptions: Sendable, Hashable {
    /// The TCP port on 127.0.0.1; 0 lets the system choose a free one.
    package var port: UInt16 = 0

    /// Default options: a free port.
    package init(port: UInt16 = 0) { self.port = port }
}
