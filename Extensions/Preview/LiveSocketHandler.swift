import FlyingFox
import Synchronization
import Foundation

/// The WebSocket that carries the live picture to one page: binary messages, the init segment
/// first, then one fragmented-MP4 fragment per message, for the page's `MediaSource`.
///
/// The outgoing stream is pulled (`AsyncStream(unfolding:)`): the server asks for the next
/// message only when it wrote the previous one to the socket, so a page that does not read
/// leaves its fragments in its ``LiveViewer``'s bounded queue, where they are skipped, and
/// nowhere else. Messages from the page: a close, or the text `keyframes` (it is behind: send
/// key frames only) and `all` (it caught up) (``LiveViewer/setKeyFramesOnly(_:)``).
struct LiveSocketHandler: WSHandler {
    let feed: LiveFeed

    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        guard let viewer = feed.addViewer() else {
            return AsyncStream { continuation in
                continuation.yield(WSFrame(fin: true, opcode: .close, mask: nil, payload: Data([0x03, 0xE8])))
                continuation.finish()
            }
        }
        let feed = self.feed
        Task {
            do {
                for try await frame in client {
                    if frame.opcode == .close { break }
                    // The page's one request: "keyframes" when it is behind, "all" when it caught up.
                    if frame.opcode == .text, let text = String(data: frame.payload, encoding: .utf8) {
                        if text == "keyframes" { viewer.setKeyFramesOnly(true) } else if text == "all" { viewer.setKeyFramesOnly(false) }
                    }
                }
            } catch {}
            feed.remove(viewer)
        }
        let closing = Mutex(false)
        return AsyncStream(unfolding: {
            if let bytes = await viewer.next() {
                return WSFrame(fin: true, opcode: .binary, mask: nil, payload: Data(bytes))
            }
            // Ended: one close frame, then the end of the stream.
            let first = closing.withLock { sent in
                defer { sent = true }
                return !sent
            }
            return first ? WSFrame(fin: true, opcode: .close, mask: nil, payload: Data([0x03, 0xE8])) : nil
        }, onCancel: { feed.remove(viewer) })
    }
}
