import Dispatch
import Foundation
import Synchronization

/// One obs-websocket 5 connection's protocol, apart from the transport: Hello, Identify with the
/// SHA-256 challenge, Reidentify, requests and request batches, events filtered by the client's
/// subscriptions, and the close codes the protocol prescribes for each malformed message.
///
/// Threading: ``receive(_:)`` is called for one connection's messages in order, from one task or
/// thread at a time (it may block while a request drives the service); ``frame(for:)`` may be
/// called from any thread at the same time.
package final class OBSSession: Sendable {
    /// The RPC version spoken (the only one obs-websocket 5 defines).
    package static let rpcVersion: Int64 = 1
    /// The obs-websocket version whose protocol this implements.
    package static let obsWebSocketVersion = "5.5.0"
    /// The most requests one batch may hold.
    package static let maxBatchRequests = 512
    /// The longest Sleep of a batch, in milliseconds (as obs-websocket).
    package static let maxSleepMillis: Int64 = 50_000

    /// What the transport does after a message.
    package enum Reaction: Sendable, Equatable {
        /// Send these frames (possibly none).
        case send([OBSFrame])
        /// Close with this code and reason.
        case close(OBSClose)
    }

    /// The session's encoding.
    package let encoding: OBSEncoding
    private let authentication: OBSAuthentication
    private let handler: any OBSRequestHandling
    private let state = Mutex<(identified: Bool, subscriptions: OBSEventSubscription)>((false, []))

    /// A session for a client that chose `encoding`, whose password is `password`.
    package init(encoding: OBSEncoding, password: String, handler: any OBSRequestHandling) {
        self.encoding = encoding
        authentication = OBSAuthentication(password: password)
        self.handler = handler
    }

    /// A session with a given challenge (tests).
    package init(encoding: OBSEncoding, authentication: OBSAuthentication, handler: any OBSRequestHandling) {
        self.encoding = encoding
        self.authentication = authentication
        self.handler = handler
    }

    /// Whether the client identified.
    package var isIdentified: Bool { state.withLock { $0.identified } }

    /// The Hello to send first (authentication is always required).
    package func hello() -> OBSFrame {
        message(.hello, ["obsWebSocketVersion": .string(Self.obsWebSocketVersion), "rpcVersion": .int(Self.rpcVersion),
                         "authentication": authentication.helloField])
    }

    /// The frame carrying `event` to this client, or nil when it has not identified or did not
    /// subscribe to the event's category.
    package func frame(for event: OBSEvent) -> OBSFrame? {
        let wanted = state.withLock { $0.identified && $0.subscriptions.contains(event.intent) }
        guard wanted else { return nil }
        var d: [String: OBSValue] = ["eventType": .string(event.type), "eventIntent": .int(event.intent.rawValue)]
        if let data = event.data { d["eventData"] = data }
        return message(.event, .object(d))
    }

    /// Handles one message from the client.
    package func receive(_ frame: OBSFrame) -> Reaction {
        do throws(OBSClose) {
            return .send(try handle(try OBSCodec.decode(frame, as: encoding)))
        } catch {
            return .close(error)
        }
    }

    private func handle(_ message: OBSValue) throws(OBSClose) -> [OBSFrame] {
        guard let top = message.object else { throw OBSClose(.messageDecodeError, "a message is an object with op and d") }
        let identified = isIdentified
        if !identified, top["request-type"] != nil {
            throw OBSClose(.unsupportedRpcVersion, "this is obs-websocket 5 (rpcVersion 1); the client speaks the 4.x protocol")
        }
        guard let opValue = top["op"] else { throw OBSClose(.unknownOpCode, "the message has no op") }
        guard let opNumber = opValue.int, let op = OBSOpCode(rawValue: opNumber) else {
            throw OBSClose(.unknownOpCode, "unknown op \(Self.describe(opValue))")
        }
        guard let dValue = top["d"] else { throw OBSClose(.missingDataField, "the message has no d") }
        guard let d = dValue.object else { throw OBSClose(.invalidDataFieldType, "d must be an object") }
        if !identified && op != .identify { throw OBSClose(.notIdentified, "send Identify (op 1) first") }
        switch op {
        case .identify:
            if identified { throw OBSClose(.alreadyIdentified, "already identified; use Reidentify (op 3)") }
            return try identify(d)
        case .reidentify:
            let subscriptions = try Self.subscriptions(d)
            state.withLock { $0.subscriptions = subscriptions }
            return [self.message(.identified, ["negotiatedRpcVersion": .int(Self.rpcVersion)])]
        case .request:
            guard let type = d["requestType"] else { throw OBSClose(.missingDataField, "a request needs requestType") }
            guard case .string(let requestType) = type else { throw OBSClose(.invalidDataFieldType, "requestType must be a string") }
            // Any value is echoed as it came, as obs-websocket does (obsws-python sends numbers).
            guard let requestId = d["requestId"] else { throw OBSClose(.missingDataField, "a request needs requestId") }
            let result = requestType == "Sleep" ? .failure(.unsupportedRequestBatchExecutionType, "Sleep is only for request batches")
                                                : handler.handle(requestType: requestType, requestData: d["requestData"])
            return [self.message(.requestResponse, .object(Self.response(requestType: requestType, requestId: requestId, result)))]
        case .requestBatch:
            return [try batch(d)]
        case .hello, .identified, .event, .requestResponse, .requestBatchResponse:
            throw OBSClose(.unknownOpCode, "op \(opNumber) is sent by the server, not by a client")
        }
    }

    private func identify(_ d: [String: OBSValue]) throws(OBSClose) -> [OBSFrame] {
        guard let version = d["rpcVersion"] else { throw OBSClose(.missingDataField, "Identify needs rpcVersion") }
        guard let rpc = version.int else { throw OBSClose(.invalidDataFieldType, "rpcVersion must be a number") }
        guard rpc == Self.rpcVersion else { throw OBSClose(.unsupportedRpcVersion, "rpcVersion \(rpc) is not supported; this server speaks 1") }
        guard case .string(let answer)? = d["authentication"], authentication.verify(answer) else {
            throw OBSClose(.authenticationFailed, "authentication failed")
        }
        let subscriptions = try Self.subscriptions(d)
        state.withLock { $0 = (true, subscriptions) }
        return [message(.identified, ["negotiatedRpcVersion": .int(Self.rpcVersion)])]
    }

    private func batch(_ d: [String: OBSValue]) throws(OBSClose) -> OBSFrame {
        guard let batchId = d["requestId"] else { throw OBSClose(.missingDataField, "a batch needs requestId") }
        guard let list = d["requests"] else { throw OBSClose(.missingDataField, "a batch needs requests") }
        guard let requests = list.array else { throw OBSClose(.invalidDataFieldType, "requests must be an array") }
        guard requests.count <= Self.maxBatchRequests else {
            throw OBSClose(.invalidDataFieldValue, "a batch holds at most \(Self.maxBatchRequests) requests")
        }
        var haltOnFailure = false
        if let h = d["haltOnFailure"] {
            guard let b = h.bool else { throw OBSClose(.invalidDataFieldType, "haltOnFailure must be a boolean") }
            haltOnFailure = b
        }
        var executionType: Int64 = 0
        if let e = d["executionType"] {
            guard let n = e.int else { throw OBSClose(.invalidDataFieldType, "executionType must be a number") }
            executionType = n
        }
        var results: [OBSValue] = []
        guard (0...2).contains(executionType) else {
            // Not a batch type: every request answered with the status that says so.
            for item in requests {
                let type = item["requestType"]?.string ?? ""
                results.append(.object(Self.response(requestType: type, requestId: item["requestId"],
                    .failure(.unsupportedRequestBatchExecutionType, "executionType \(executionType) is not 0, 1 or 2"))))
            }
            return message(.requestBatchResponse, ["requestId": batchId, "results": .array(results)])
        }
        // SerialRealtime, SerialFrame and Parallel all run in order here: RecordKit's requests
        // drive one recording, where order is the meaning (start before pause before stop).
        for item in requests {
            let requestId = item["requestId"]
            guard let requestType = item["requestType"]?.string else {
                results.append(.object(Self.response(requestType: "", requestId: requestId, .failure(.missingRequestType, "each request needs requestType"))))
                if haltOnFailure { break }
                continue
            }
            let result: OBSRequestResult
            if requestType == "Sleep" {
                result = Self.sleep(item["requestData"], executionType: executionType)
            } else {
                result = handler.handle(requestType: requestType, requestData: item["requestData"])
            }
            results.append(.object(Self.response(requestType: requestType, requestId: requestId, result)))
            if haltOnFailure && result.status != .success { break }
        }
        return message(.requestBatchResponse, ["requestId": batchId, "results": .array(results)])
    }

    /// Sleep in a batch: `sleepMillis` (SerialRealtime) or `sleepFrames` (SerialFrame, at 30 frames per second).
    private static func sleep(_ data: OBSValue?, executionType: Int64) -> OBSRequestResult {
        let millis: Int64
        if executionType == 1 {
            guard let frames = data?["sleepFrames"]?.int else { return .failure(.missingRequestField, "Sleep in a SerialFrame batch needs sleepFrames") }
            guard (0...10_000).contains(frames) else { return .failure(.requestFieldOutOfRange, "sleepFrames must be 0 to 10000") }
            millis = frames * 1000 / 30
        } else if executionType == 0 {
            guard let m = data?["sleepMillis"]?.int else { return .failure(.missingRequestField, "Sleep needs sleepMillis") }
            millis = m
        } else {
            return .failure(.unsupportedRequestBatchExecutionType, "Sleep is not available in Parallel batches")
        }
        guard (0...maxSleepMillis).contains(millis) else { return .failure(.requestFieldOutOfRange, "sleepMillis must be 0 to \(maxSleepMillis)") }
        Thread.sleep(forTimeInterval: Double(millis) / 1000)
        return .success()
    }

    private static func subscriptions(_ d: [String: OBSValue]) throws(OBSClose) -> OBSEventSubscription {
        guard let value = d["eventSubscriptions"] else { return .all }
        guard let bits = value.int else { throw OBSClose(.invalidDataFieldType, "eventSubscriptions must be a number") }
        return OBSEventSubscription(rawValue: bits)
    }

    static func response(requestType: String, requestId: OBSValue?, _ result: OBSRequestResult) -> [String: OBSValue] {
        var status: [String: OBSValue] = ["result": .bool(result.status == .success), "code": .int(result.status.rawValue)]
        if let comment = result.comment { status["comment"] = .string(comment) }
        var d: [String: OBSValue] = ["requestType": .string(requestType), "requestStatus": .object(status)]
        if let requestId { d["requestId"] = requestId }
        if let data = result.data { d["responseData"] = data }
        return d
    }

    private func message(_ op: OBSOpCode, _ d: OBSValue) -> OBSFrame {
        OBSCodec.encode(["op": .int(op.rawValue), "d": d], as: encoding)
    }

    private static func describe(_ v: OBSValue) -> String {
        if let i = v.int { return String(i) }
        if let s = v.string { return "\"\(s.prefix(32))\"" }
        return "of the wrong type"
    }
}
