/// The DNS-rebinding and cross-site checks every request passes before any route sees it.
///
/// `Host` must name the loopback address the server listens on, with its port: `127.0.0.1:P`,
/// `localhost:P` or `[::1]:P` (a page from another site that rebinds its name to 127.0.0.1
/// still sends its own name). `Origin`, when present, must be one of the server's own origins or
/// a configured one for every state-changing request and every WebSocket upgrade (browsers send
/// it on both; a WebSocket is not covered by the same-origin policy). Both refusals are 403.
struct WebOriginPolicy: Sendable {
    let port: Int
    let allowedOrigins: Set<String>

    init(port: Int, configured: [String]) {
        self.port = port
        var origins = Set(configured.map { $0.lowercased() })
        for host in ["127.0.0.1", "localhost", "[::1]"] { origins.insert("http://\(host):\(port)") }
        allowedOrigins = origins
    }

    /// Why `request` is refused (the 403's text), or nil when it passes.
    func refusal(method: String, host: String?, origin: String?, isUpgrade: Bool) -> String? {
        guard let host else { return "a Host header is required" }
        let name = host.lowercased()
        guard ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"].contains(name) else {
            return "Host must be 127.0.0.1:\(port) or localhost:\(port)"
        }
        let changesState = !["GET", "HEAD", "OPTIONS"].contains(method)
        if let origin, changesState || isUpgrade, !allowedOrigins.contains(origin.lowercased()) {
            return "requests from this Origin are not allowed"
        }
        return nil
    }
}
