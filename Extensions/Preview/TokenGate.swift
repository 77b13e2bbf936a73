import RecordKitWeb

/// Every request passes here first: it must carry the recording's token, as the query item
/// `token` (the URL `recordctl preview` prints, as Jupyter's) or the cookie the page got with
/// its first answer; otherwise the answer is a bare 403 (no body, no hint). Then the request
/// goes to ``PreviewRoutes``. No CORS header is ever sent, so another origin's script cannot
/// read an answer even if it guessed the port; RecordKitWeb has already refused a foreign Host
/// and, for anything but a read, a foreign Origin.
struct TokenGate: Sendable {
    let site: PreviewSite

    /// nil when `request` carries the token; the bare 403 otherwise.
    func refusal(_ request: WebRequest) -> WebResponse? {
        site.token.matches(request.query["token"]) || site.token.matches(request.cookie(site.cookieName)) ? nil : WebResponse(status: 403)
    }

    /// The answer to `request`: the 403, or the route's answer (with the cookie when the token
    /// came in the query).
    func handle(_ request: WebRequest) async -> WebResponse {
        if let refusal = refusal(request) { return refusal }
        var response = await PreviewRoutes(site: site).handle(request)
        if site.token.matches(request.query["token"]) {
            response.addHeader("Set-Cookie", "\(site.cookieName)=\(site.token.text); Path=/; HttpOnly; SameSite=Strict")
        }
        return response
    }
}
