/// Where a request goes: a path (exact, or every path under a prefix) and what answers it.
///
/// Routes are matched in the order given to ``WebServer``; the first whose path matches wins.
package struct WebRoute: Sendable {
    /// What answers.
    package enum Kind: Sendable {
        /// An HTTP handler, run as a task (it may await; it must not block a thread).
        case http(methods: Set<String>?, handler: @Sendable (WebRequest) async -> WebResponse)
        /// A WebSocket endpoint.
        case webSocket(WebSocketEndpoint)
    }

    /// The path, or the prefix when ``isPrefix``.
    package let path: String
    /// Whether every path that starts with ``path`` matches.
    package let isPrefix: Bool
    /// What answers.
    package let kind: Kind

    /// An HTTP route for `methods` (nil: any method; 405 for another).
    package static func http(_ path: String, prefix: Bool = false, methods: Set<String>? = ["GET", "HEAD"],
                             _ handler: @escaping @Sendable (WebRequest) async -> WebResponse) -> WebRoute {
        WebRoute(path: path, isPrefix: prefix, kind: .http(methods: methods, handler: handler))
    }

    /// A WebSocket route at exactly `path`.
    package static func webSocket(_ path: String, _ endpoint: WebSocketEndpoint) -> WebRoute {
        WebRoute(path: path, isPrefix: false, kind: .webSocket(endpoint))
    }

    func matches(_ requestPath: String) -> Bool {
        isPrefix ? requestPath.hasPrefix(path) : requestPath == path
    }
}

/// A WebSocket endpoint: which subprotocols it speaks, who may open it, and what runs once open.
package struct WebSocketEndpoint: Sendable {
    /// Subprotocols spoken, in the server's order of preference (`obswebsocket.json`, …). The
    /// first one the client offers is chosen and echoed in `Sec-WebSocket-Protocol`.
    package var subprotocols: [String]
    /// Whether a client that offers none of ``subprotocols`` is refused (400); when false it is
    /// accepted with no subprotocol (``WebSocketConnection/subprotocol`` nil).
    package var requiresSubprotocol: Bool
    /// Called on the event loop with the upgrade request, after the Host and Origin checks: nil
    /// accepts, a response refuses (403, 503, …). Must be quick and must not block.
    package var authorize: @Sendable (WebRequest) -> WebResponse?
    /// Called once the connection is open (on the event loop: start a task for anything long).
    package var open: @Sendable (WebSocketConnection) -> Void

    /// An endpoint; see the properties.
    package init(subprotocols: [String] = [], requiresSubprotocol: Bool = false,
                 authorize: @escaping @Sendable (WebRequest) -> WebResponse? = { _ in nil },
                 open: @escaping @Sendable (WebSocketConnection) -> Void) {
        self.subprotocols = subprotocols
        self.requiresSubprotocol = requiresSubprotocol
        self.authorize = authorize
        self.open = open
    }

    /// The subprotocol to answer with for the client's `Sec-WebSocket-Protocol` header:
    /// `.some(nil)` for none, nil when the client must be refused.
    func negotiate(_ offered: String?) -> String?? {
        let offers = (offered ?? "").split(separator: ",").map { $0.trimmingCharacters(in: " \t") }
        for mine in subprotocols where offers.contains(mine) { return .some(mine) }
        return requiresSubprotocol ? nil : .some(nil)
    }
}

extension StringProtocol {
    /// The text without leading and trailing `characters` (Foundation-free).
    func trimmingCharacters(in characters: String) -> String {
        let set = Set(characters)
        var view = Substring(self)
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
