import RecordKitWeb

/// The WebSocket that carries the live picture to one page: binary messages, the init segment
/// first, then one fragmented-MP4 fragment per message, for the page's `MediaSource`.
///
/// Sending is pulled: the next fragment is taken from the ``LiveViewer`` only once the previous
/// one is written to the socket, so a page that does not read leaves its fragments in its
/// viewer's bounded queue, where they are skipped, and nowhere else (RecordKitWeb closes it
/// after its idle timeout). Messages from the page: the text `keyframes` (it is behind: send key
/// frames only) and `all` (it caught up) (``LiveViewer/setKeyFramesOnly(_:)``).
struct LiveSocketHandler: Sendable {
    let feed: LiveFeed

    /// Serves `connection` until the recording ends or the page goes (two tasks: send, receive).
    func run(_ connection: WebSocketConnection) {
        guard let viewer = feed.addViewer() else { return connection.close(code: 1000) }
        let feed = self.feed
        Task {
            for await message in connection.messages {
                // The page's one request: "keyframes" when it is behind, "all" when it caught up.
                if case .text(let text) = message {
                    if text == "keyframes" { viewer.setKeyFramesOnly(true) } else if text == "all" { viewer.setKeyFramesOnly(false) }
                }
            }
            feed.remove(viewer)
        }
        Task {
            while let bytes = await viewer.next() {
                do { try await connection.send(.binary(bytes)) } catch { break }
            }
            feed.remove(viewer)
            connection.close(code: 1000)
        }
    }
}
