/// What every connection of one ``WebServer`` shares: its routes, limits and checks. Values only.
struct WebSite: Sendable {
    let routes: [WebRoute]
    let limits: WebLimits
    let policy: WebOriginPolicy

    /// The first route whose path matches.
    func route(for path: String) -> WebRoute? {
        routes.first { $0.matches(path) }
    }

    /// Why `request` is refused before any route sees it (a 403), or nil.
    func refusal(_ request: WebRequest, isUpgrade: Bool) -> WebResponse? {
        policy.refusal(method: request.method, host: request.header("host"), origin: request.header("origin"), isUpgrade: isUpgrade)
            .map { WebResponse.text(403, $0) }
    }
}
