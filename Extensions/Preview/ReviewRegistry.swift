import Foundation
import Synchronization

/// Keeps the review servers of finished recordings alive in the process (the service) after
/// their handler is gone, until the page keeps or discards the movie; a review left open is
/// replaced by the next recording's.
final class ReviewRegistry: Sendable {
    static let shared = ReviewRegistry()

    private struct Entry: Sendable {
        let server: PreviewServer?
        let site: PreviewSite
    }
    private let entries = Mutex<[Entry]>([])

    /// Keeps `server` serving `site`'s review; stops the reviews this one replaces and those
    /// that closed.
    func keep(server: PreviewServer?, site: PreviewSite) {
        let stale = entries.withLock { list in
            defer { list = [Entry(server: server, site: site)] }
            return list
        }
        for entry in stale { entry.server?.stop() }
    }
}
