/// How a ``WebServer`` listens and what it lets in.
package struct WebServerConfiguration: Sendable {
    /// The port on 127.0.0.1 (0: any free port). The server never listens elsewhere.
    package var port: UInt16 = 0
    /// The bounds (``WebLimits``).
    package var limits = WebLimits()
    /// Origins (`scheme://host[:port]`, exact, case-insensitive) that may send state-changing
    /// requests (any method but GET, HEAD and OPTIONS) and open WebSockets, besides the
    /// server's own (`http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`).
    /// A request without `Origin` comes from a non-browser client and is allowed.
    package var allowedOrigins: [String] = []

    /// The defaults: any free port, ``WebLimits`` defaults, only the server's own origins.
    package init(port: UInt16 = 0, limits: WebLimits = WebLimits(), allowedOrigins: [String] = []) {
        self.port = port
        self.limits = limits
        self.allowedOrigins = allowedOrigins
    }
}
