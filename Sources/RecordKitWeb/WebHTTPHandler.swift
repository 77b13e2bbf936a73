import NIOCore
import NIOHTTP1

/// The HTTP side of one connection, after NIO's bounded parser: it enforces the request
/// deadline and the body limit, refuses a foreign Host or Origin, routes, runs the route as a
/// task, and writes its answer (bytes, or a file with Range) with the connection kept alive or
/// closed. Parser errors become 431 (head too large) or 400, then the connection closes.
///
/// One request at a time: while a response is under way, further (pipelined) requests already
/// parsed wait in order, and the socket is not read (so a client cannot queue more than one
/// read's worth).
///
/// Threading: the channel's event loop; route handlers run as tasks and hand their response
/// back to the loop.
final class WebHTTPHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Pending {
        case part(HTTPServerRequestPart)
        case error(HTTPParserError)
    }

    private let site: WebSite
    private var pending: [Pending] = []
    private var readPending = false
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var responding = false
    private var closing = false
    private var deadline: Scheduled<Void>?

    init(site: WebSite) {
        self.site = site
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armDeadline(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armDeadline(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func read(context: ChannelHandlerContext) {
        if responding { readPending = true } else { context.read() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        if responding { return pending.append(.part(unwrapInboundIn(data))) }
        process(context: context, part: unwrapInboundIn(data))
    }

    private func process(context: ChannelHandlerContext, part: HTTPServerRequestPart) {
        switch part {
        case .head(let requestHead):
            head = requestHead
            body = []
            if let length = requestHead.headers.first(name: "content-length").flatMap({ Int($0) }), length > site.limits.maxBodyBytes {
                return refuse(context: context, status: 413, "the request body is larger than \(site.limits.maxBodyBytes) bytes")
            }
        case .body(var part):
            guard head != nil else { return }
            guard body.count + part.readableBytes <= site.limits.maxBodyBytes else {
                return refuse(context: context, status: 413, "the request body is larger than \(site.limits.maxBodyBytes) bytes")
            }
            body.append(contentsOf: part.readBytes(length: part.readableBytes) ?? [])
        case .end:
            guard let requestHead = head else { return }
            head = nil
            deadline?.cancel()
            deadline = nil
            handle(context: context, head: requestHead, body: body)
            body = []
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Only the parser's errors end a connection; an upgrader that declined (a bad
        // Sec-WebSocket-Key, …) lets the request through to be answered here.
        guard let parserError = error as? HTTPParserError else { return }
        if closing {
            context.close(promise: nil)
        } else if responding {
            pending.append(.error(parserError))
        } else {
            answer(context: context, parserError: parserError)
        }
    }

    private func answer(context: ChannelHandlerContext, parserError: HTTPParserError) {
        if case .headerOverflow = parserError {
            refuse(context: context, status: 431, "the request line or headers are too large (at most \(site.limits.maxHeadBytes) bytes, \(site.limits.maxHeaderCount) fields)")
        } else {
            refuse(context: context, status: 400, "malformed HTTP request")
        }
    }

    // MARK: Requests

    private func handle(context: ChannelHandlerContext, head: HTTPRequestHead, body: [UInt8]) {
        let request = WebRequest(method: head.method.rawValue, target: head.uri,
                                 headers: head.headers.map { ($0.name, $0.value) }, body: body)
        let keepAlive = head.isKeepAlive
        // An upgrade the upgrader declined comes here to be told why: its Origin is checked too.
        let isUpgrade = request.header("upgrade")?.lowercased() == "websocket"
        if let refusal = site.refusal(request, isUpgrade: isUpgrade) {
            return write(context: context, response: refusal, method: head.method, keepAlive: keepAlive)
        }
        guard let route = site.route(for: request.path) else {
            return write(context: context, response: .text(404, "not found"), method: head.method, keepAlive: keepAlive)
        }
        switch route.kind {
        case .webSocket(let endpoint):
            let response = endpoint.authorize(request)
                ?? (isUpgrade
                    ? .text(400, "bad WebSocket handshake: version 13, a Sec-WebSocket-Key and one of the subprotocols [\(endpoint.subprotocols.joined(separator: ", "))] are needed")
                    : .text(426, "this path is a WebSocket"))
            write(context: context, response: response, method: head.method, keepAlive: false)
        case .http(let methods, let handler):
            if let methods, !methods.contains(request.method) {
                var response = WebResponse.text(405, "method not allowed")
                response.addHeader("Allow", methods.sorted().joined(separator: ", "))
                return write(context: context, response: response, method: head.method, keepAlive: keepAlive)
            }
            responding = true
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            let method = head.method
            Task {
                let response = await handler(request)
                let file = await WebFile.open(response: response, range: request.header("range"), loop: loop)
                loop.execute {
                    let (handler, context) = bound.value
                    handler.write(context: context, response: response, file: file, method: method, keepAlive: keepAlive)
                }
            }
        }
    }

    // MARK: Responses

    private func refuse(context: ChannelHandlerContext, status: Int, _ message: String) {
        closing = true
        deadline?.cancel()
        deadline = nil
        write(context: context, response: .text(status, message), method: .GET, keepAlive: false)
    }

    private func write(context: ChannelHandlerContext, response: WebResponse, file: WebFile? = nil, method: HTTPMethod, keepAlive: Bool) {
        guard context.channel.isActive else {
            file?.close()
            return
        }
        responding = true
        var status = response.status
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        var bodyLength = 0
        var region: FileRegion?
        var bytes: ByteBuffer?
        switch response.body {
        case .bytes(let data):
            bytes = context.channel.allocator.buffer(bytes: data)
            bodyLength = data.count
        case .file:
            switch file?.outcome {
            case .some(.send(let fileRegion, let partial)):
                headers.replaceOrAdd(name: "Accept-Ranges", value: "bytes")
                if let partial {
                    status = 206
                    headers.replaceOrAdd(name: "Content-Range", value: partial)
                }
                region = fileRegion
                bodyLength = fileRegion.readableBytes
            case .some(.unsatisfiable(let size)):
                status = 416
                headers = ["Content-Range": "bytes */\(size)", "Accept-Ranges": "bytes"]
            case .some(.missing), nil:
                status = 404
                headers = ["Content-Type": "text/plain; charset=utf-8"]
                bytes = context.channel.allocator.buffer(string: "not found")
                bodyLength = 9
            }
        }
        headers.replaceOrAdd(name: "Content-Length", value: String(bodyLength))
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let responseHead = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if method != .HEAD {
            if let region { context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: nil) }
            if let bytes, bytes.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil) }
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { result in
            file?.close()
            let (handler, context) = loopBound.value
            handler.responding = false
            if keepAlive, !handler.closing, case .success = result {
                handler.armDeadline(context: context)
                handler.resume(context: context)
            } else {
                context.close(promise: nil)
            }
        }
    }

    /// After a response: the requests that waited, in order, then the socket again.
    private func resume(context: ChannelHandlerContext) {
        while !responding, !closing, !pending.isEmpty {
            switch pending.removeFirst() {
            case .part(let part): process(context: context, part: part)
            case .error(let error): answer(context: context, parserError: error)
            }
        }
        if !responding, readPending {
            readPending = false
            context.read()
        }
    }

    /// The next request must be complete within the header timeout, or it is answered 408.
    private func armDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .milliseconds(Int64(site.limits.headerTimeout * 1000))) {
            let (handler, context) = bound.value
            guard !handler.responding, !handler.closing else { return }
            handler.refuse(context: context, status: 408, "the request did not arrive within \(Int(handler.site.limits.headerTimeout)) s")
        }
    }
}
