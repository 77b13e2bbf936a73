import FlyingFox
import Foundation

/// Every request passes here first: it must carry the recording's token, as the query item
/// `token` (the URL `recordctl preview` prints, as Jupyter's) or the cookie the page got with
/// its first answer; otherwise the answer is a bare 403 (no body, no hint). Then the request
/// goes to ``PreviewRoutes``. No CORS header is ever sent, so another origin's script cannot
/// read an answer even if it guessed the port.
struct TokenGate: HTTPHandler {
    let site: PreviewSite

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fromQuery = site.token.matches(request.query["token"])
        guard fromQuery || site.token.matches(cookie(named: site.cookieName, in: request)) else {
            return HTTPResponse(statusCode: .forbidden)
        }
        var response = try await PreviewRoutes(site: site).handleRequest(request)
        if fromQuery, response.headers[.upgrade] == nil {
            response.headers[HTTPHeader("Set-Cookie")] = "\(site.cookieName)=\(site.token.text); Path=/; HttpOnly; SameSite=Strict"
        }
        return response
    }

    private func cookie(named name: String, in request: HTTPRequest) -> String? {
        guard let header = request.headers[HTTPHeader("Cookie")] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == name { return String(pair[1]) }
        }
        return nil
    }
}
