import Foundation
import RecordKit
import RecordKitWeb

/// The preview's routes, reached only through ``TokenGate``:
///
/// | route | what |
/// |---|---|
/// | `GET /` | the page (``PreviewPage``) |
/// | `GET /live` | WebSocket: the live picture as fragmented MP4 (``LiveSocketHandler``; routed by ``PreviewServer``) |
/// | `GET /status` | JSON: `preview` (mode, viewers, movie) and `recording` (the recorder's status) |
/// | `POST /control/{pause,resume,stop,discard,mic-off,mic-on,camera-off,camera-on}` | the recording's controls, as `recordctl` |
/// | `GET /movie` | the finished movie, with HTTP Range (review; RecordKitWeb's ``ByteRange``: 416 for any unsatisfiable range) |
/// | `POST /review/keep?start=S&end=E&duration=D`, `POST /review/discard` | the review's buttons |
struct PreviewRoutes: Sendable {
    let site: PreviewSite

    /// The answer to `request` (already past the token).
    func handle(_ request: WebRequest) async -> WebResponse {
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"), ("HEAD", "/"):
            return WebResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                               body: .bytes(PreviewPage.html))
        case ("GET", "/status"):
            return statusResponse()
        case ("POST", let path) where path.hasPrefix("/control/"):
            return await control(String(path.dropFirst("/control/".count)))
        case ("GET", "/movie"), ("HEAD", "/movie"):
            guard site.mode == .review, let path = site.moviePath else { return text(404, "no movie to review") }
            guard site.movieReady else { return text(503, "the movie is being finalized") }
            return .file(path, contentType: "video/mp4", headers: [("Cache-Control", "no-store")])
        case ("POST", "/review/keep"):
            return keep(request)
        case ("POST", "/review/discard"):
            guard site.mode == .review, let path = site.moviePath else { return text(409, "nothing to discard") }
            guard site.movieReady else { return text(503, "the movie is being finalized") }
            guard site.reviewActions.discard(path: path) else { return text(500, "deleting the movie failed") }
            site.close(outcome: "discarded")
            return json(["outcome": "discarded"])
        default:
            return text(404, "not found")
        }
    }

    private func statusResponse() -> WebResponse {
        let recording = site.recordingStatus()
        let preview = (try? JSONSerialization.data(withJSONObject: site.previewStatus(recording: recording))) ?? Data("{}".utf8)
        var body = Data("{\"preview\":".utf8)
        body.append(preview)
        body.append(Data(",\"recording\":".utf8))
        body.append(contentsOf: recording.isEmpty ? Array("{}".utf8) : recording)
        body.append(Data("}".utf8))
        return WebResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: .bytes(Array(body)))
    }

    private func control(_ name: String) async -> WebResponse {
        guard let request = BroadcastControlRequest(rawValue: name) else { return text(404, "no control '\(name)'") }
        guard site.mode == .live, let control = site.control else { return text(409, "the recording is over") }
        // Stop and discard end this handler's broadcast, which waits for nothing of ours: answer
        // once the request is under way. Pause and resume answer with their result.
        if request == .stop || request == .discard {
            control.requestControl(request) { _ in }
            return json(["requested": name])
        }
        let error: BroadcastError? = await withCheckedContinuation { continuation in
            control.requestControl(request) { continuation.resume(returning: $0) }
        }
        if let error { return text(409, error.message) }
        return json(["done": name])
    }

    private func keep(_ request: WebRequest) -> WebResponse {
        guard site.mode == .review, let path = site.moviePath else { return text(409, "nothing to keep") }
        guard site.movieReady else { return text(503, "the movie is being finalized") }
        guard let start = request.query["start"].flatMap(Double.init), let end = request.query["end"].flatMap(Double.init),
              let duration = request.query["duration"].flatMap(Double.init), start.isFinite, end.isFinite, duration.isFinite else {
            return text(400, "keep needs start, end and duration in seconds")
        }
        switch site.reviewActions.keep(path: path, start: start, end: end, duration: duration) {
        case .kept(let kept):
            site.close(outcome: "kept as \((kept as NSString).lastPathComponent)")
            return json(["outcome": "kept", "path": kept])
        case .trimUnavailable:
            return text(501, "trim not available in this build: keep the whole movie, or trim it later with recordctl trim")
        case .failed(let message):
            return text(500, message)
        }
    }

    private func json(_ object: [String: String]) -> WebResponse {
        WebResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                    body: .bytes(Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())))
    }

    private func text(_ status: Int, _ message: String) -> WebResponse {
        .text(status, message)
    }
}
