import FlyingFox
import Foundation
import RecordKit

/// The preview's routes, reached only through ``TokenGate``:
///
/// | route | what |
/// |---|---|
/// | `GET /` | the page (``PreviewPage``) |
/// | `GET /live` | WebSocket: the live picture as fragmented MP4 (``LiveSocketHandler``) |
/// | `GET /status` | JSON: `preview` (mode, viewers, movie) and `recording` (the recorder's status) |
/// | `POST /control/{pause,resume,stop,discard}` | the recording's controls, as `recordctl` |
/// | `GET /movie` | the finished movie, with HTTP Range (review) |
/// | `POST /review/keep?start=S&end=E&duration=D`, `POST /review/discard` | the review's buttons |
struct PreviewRoutes: HTTPHandler {
    let site: PreviewSite

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch (request.method, request.path) {
        case (.GET, "/"), (.GET, "/index.html"):
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                body: Data(PreviewPage.html))
        case (.GET, "/live"):
            return try await WebSocketHTTPHandler(handler: LiveSocketHandler(feed: site.feed)).handleRequest(request)
        case (.GET, "/status"):
            return statusResponse()
        case (.POST, let path) where path.hasPrefix("/control/"):
            return await control(String(path.dropFirst("/control/".count)))
        case (.GET, "/movie"), (.HEAD, "/movie"):
            guard site.mode == .review, let path = site.moviePath else { return text(.notFound, "no movie to review") }
            guard site.movieReady else { return text(.serviceUnavailable, "the movie is being finalized") }
            return try await FileHTTPHandler(path: URL(fileURLWithPath: path), contentType: "video/mp4", cacheControl: [.noStore])
                .handleRequest(request)
        case (.POST, "/review/keep"):
            return keep(request)
        case (.POST, "/review/discard"):
            guard site.mode == .review, let path = site.moviePath else { return text(.conflict, "nothing to discard") }
            guard site.movieReady else { return text(.serviceUnavailable, "the movie is being finalized") }
            guard site.reviewActions.discard(path: path) else { return text(.internalServerError, "deleting the movie failed") }
            site.close(outcome: "discarded")
            return json(["outcome": "discarded"])
        default:
            return text(.notFound, "not found")
        }
    }

    private func statusResponse() -> HTTPResponse {
        let recording = site.recordingStatus()
        let preview = (try? JSONSerialization.data(withJSONObject: site.previewStatus(recording: recording))) ?? Data("{}".utf8)
        var body = Data("{\"preview\":".utf8)
        body.append(preview)
        body.append(Data(",\"recording\":".utf8))
        body.append(contentsOf: recording.isEmpty ? Array("{}".utf8) : recording)
        body.append(Data("}".utf8))
        return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: body)
    }

    private func control(_ name: String) async -> HTTPResponse {
        guard let request = BroadcastControlRequest(rawValue: name) else { return text(.notFound, "no control '\(name)'") }
        guard site.mode == .live, let control = site.control else { return text(.conflict, "the recording is over") }
        // Stop and discard end this handler's broadcast, which waits for nothing of ours: answer
        // once the request is under way. Pause and resume answer with their result.
        if request == .stop || request == .discard {
            control.requestControl(request) { _ in }
            return json(["requested": name])
        }
        let error: BroadcastError? = await withCheckedContinuation { continuation in
            control.requestControl(request) { continuation.resume(returning: $0) }
        }
        if let error { return text(.conflict, error.message) }
        return json(["done": name])
    }

    private func keep(_ request: HTTPRequest) -> HTTPResponse {
        guard site.mode == .review, let path = site.moviePath else { return text(.conflict, "nothing to keep") }
        guard site.movieReady else { return text(.serviceUnavailable, "the movie is being finalized") }
        guard let start = request.query["start"].flatMap(Double.init), let end = request.query["end"].flatMap(Double.init),
              let duration = request.query["duration"].flatMap(Double.init), start.isFinite, end.isFinite, duration.isFinite else {
            return text(.badRequest, "keep needs start, end and duration in seconds")
        }
        switch site.reviewActions.keep(path: path, start: start, end: end, duration: duration) {
        case .kept(let kept):
            site.close(outcome: "kept as \((kept as NSString).lastPathComponent)")
            return json(["outcome": "kept", "path": kept])
        case .trimUnavailable:
            return text(.notImplemented, "trim not available in this build: keep the whole movie, or trim it later with recordctl trim")
        case .failed(let message):
            return text(.internalServerError, message)
        }
    }

    private func json(_ object: [String: String]) -> HTTPResponse {
        HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                     body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    private func text(_ status: HTTPStatusCode, _ message: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "text/plain; charset=utf-8"], body: Data(message.utf8))
    }
}
