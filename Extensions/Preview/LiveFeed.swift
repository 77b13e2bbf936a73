import Synchronization

/// The live picture's fan-out: the init segment, and every viewer watching. The handler
/// ``publish(_:isKeyFrame:)``es each fragment once; each viewer gets it through its own bounded
/// queue (``LiveViewer``), so any number of viewers, slow or gone, cost the recording one
/// lock and an array append each.
///
/// Threading: any thread.
final class LiveFeed: Sendable {
    private struct State {
        var initSegment: [UInt8]?
        var viewers: [ObjectIdentifier: LiveViewer] = [:]
        var ended = false
        var skipsOfGone = 0
    }
    private let state = Mutex(State())

    /// Sets the init segment that every viewer gets first.
    func start(initSegment: [UInt8]) {
        state.withLock { $0.initSegment = initSegment }
    }

    /// A new viewer, starting at the next key frame; nil before the init segment is known or
    /// after the recording ended.
    func addViewer() -> LiveViewer? {
        state.withLock { s in
            guard !s.ended, let initSegment = s.initSegment else { return nil }
            let viewer = LiveViewer(initSegment: initSegment)
            s.viewers[ObjectIdentifier(viewer)] = viewer
            return viewer
        }
    }

    /// Forgets `viewer` (its socket closed).
    func remove(_ viewer: LiveViewer) {
        state.withLock { s in
            if s.viewers.removeValue(forKey: ObjectIdentifier(viewer)) != nil { s.skipsOfGone += viewer.skips }
        }
        viewer.end()
    }

    /// Hands a fragment to every viewer. Never blocks.
    func publish(_ bytes: [UInt8], isKeyFrame: Bool) {
        let viewers = state.withLock { Array($0.viewers.values) }
        for viewer in viewers { viewer.offer(bytes, isKeyFrame: isKeyFrame) }
    }

    /// How many viewers watch.
    var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// How many viewers get key frames only (their pages are behind).
    var keyFrameOnlyViewers: Int { state.withLock { $0.viewers.values.filter(\.keyFramesOnly).count } }

    /// How often viewers were skipped forward because they read too slowly (those watching
    /// now and those gone).
    var skips: Int {
        state.withLock { s in s.skipsOfGone + s.viewers.values.reduce(0) { $0 + $1.skips } }
    }

    /// Ends every viewer and refuses new ones.
    func end() {
        let viewers = state.withLock { s in
            s.ended = true
            defer { s.viewers = [:] }
            return Array(s.viewers.values)
        }
        for viewer in viewers { viewer.end() }
    }
}
