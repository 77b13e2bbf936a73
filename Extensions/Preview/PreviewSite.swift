import Foundation
import RecordKit
import Synchronization

/// Everything the preview's pages show and do, shared by the handler (which feeds it) and the
/// server's routes (which read it): the token, the live feed, the recording's status and
/// controls, and after stop the movie under review.
///
/// Threading: any thread; its mutable part is under one short lock.
final class PreviewSite: Sendable {
    /// What the page is.
    enum Mode: String, Sendable {
        /// The recording runs: live picture and controls.
        case live
        /// The recording stopped: the movie to watch, trim, keep or discard.
        case review
        /// Nothing left to show: kept, discarded, or the recording was discarded.
        case closed
    }

    let token = PreviewToken.random()
    let feed = LiveFeed()
    /// The cookie that carries the token after the first request, named after the token's
    /// first 8 hex digits: cookies are per host, not per port, so each recording needs its own.
    let cookieName: String
    /// The MIME type of the live stream for `MediaSource.addSourceBuffer`, with its exact codecs
    /// (`video/mp4; codecs="avc1.64001f,mp4a.40.2"`).
    let mimeType: String
    /// What carries out Keep (a lossless trim, once the trim engine is wired in) and Discard.
    let reviewActions: ReviewActions

    private struct State {
        var mode = Mode.live
        var control: (any BroadcastControlling)?
        var moviePath: String?
        var outcome: String?
        var lastStatus: [UInt8] = Array("{}".utf8)
    }
    private let state = Mutex(State())

    init(mimeType: String, control: (any BroadcastControlling)?, reviewActions: ReviewActions = ReviewActions()) {
        self.mimeType = mimeType
        cookieName = "rk_preview_" + token.text.prefix(8)
        self.reviewActions = reviewActions
        state.withLock { $0.control = control }
    }

    var mode: Mode { state.withLock { $0.mode } }
    var moviePath: String? { state.withLock { $0.moviePath } }
    var control: (any BroadcastControlling)? { state.withLock { $0.control } }

    /// The recording's status JSON (the last one seen, once the recorder is gone).
    func recordingStatus() -> [UInt8] {
        guard let control = state.withLock({ $0.control }) else { return state.withLock { $0.lastStatus } }
        let json = control.recordingStatusJSON()
        if json.count > 2 { state.withLock { $0.lastStatus = json } }
        return json.count > 2 ? json : state.withLock { $0.lastStatus }
    }

    /// Whether the movie under review is complete: the recording reached a final state (its
    /// file handler finalized the file), or its recorder is gone.
    var movieReady: Bool {
        guard mode == .review else { return false }
        guard let object = try? JSONSerialization.jsonObject(with: Data(recordingStatus())) as? [String: Any],
              let state = object["state"] as? String else { return true }
        return state == "finished" || state == "failed"
    }

    /// The recording stopped: the page turns into the review of `moviePath` (nil: nothing to
    /// review, the page closes).
    func beginReview(moviePath: String?, finalStatus: [UInt8]) {
        state.withLock { s in
            s.lastStatus = finalStatus
            s.moviePath = moviePath
            s.mode = moviePath == nil ? .closed : .review
        }
    }

    /// The review ended with `outcome` ("kept …", "discarded").
    func close(outcome: String) {
        state.withLock { s in
            s.mode = .closed
            s.outcome = outcome
            s.control = nil
        }
    }

    /// The `preview` part of the page's status document; `recording` is the recording's status
    /// (while live, the file being written is found in it).
    func previewStatus(recording: [UInt8]) -> [String: Any] {
        let (mode, reviewed, outcome) = state.withLock { ($0.mode, $0.moviePath, $0.outcome) }
        let path = reviewed ?? (mode == .live ? PreviewHandler.moviePath(in: recording) : nil)
        var status: [String: Any] = ["mode": mode.rawValue, "viewers": feed.viewerCount, "viewerSkips": feed.skips,
                                     "viewersOnKeyFrames": feed.keyFrameOnlyViewers, "mimeType": mimeType,
                                     "trimAvailable": reviewActions.canTrim]
        if let path {
            status["movie"] = (path as NSString).lastPathComponent
            var info = stat()
            if stat(path, &info) == 0 { status["movieBytes"] = Int64(info.st_size) }
        }
        if let outcome { status["outcome"] = outcome }
        if mode == .review { status["movieReady"] = movieReady }
        return status
    }
}
