import XCTest
@testable import RecordKitOBSWebSocket

/// obs-websocket 5's handshake, requests, batches, subscriptions and close codes, through
/// ``OBSSession`` with both encodings. The request handler here answers from a table, which is
/// what the protocol layer sees; the real mapping onto the service is proven end to end.
final class OBSSessionTests: XCTestCase {
    /// Answers GetVersion and Fail from a table; records what it was asked, in order.
    final class TableHandler: OBSRequestHandling, @unchecked Sendable {
        private let lock = NSLock()
        private var asked: [String] = []
        var calls: [String] { lock.withLock { asked } }
        func handle(requestType: String, requestData: OBSValue?) -> OBSRequestResult {
            lock.withLock { asked.append(requestType) }
            switch requestType {
            case "GetVersion": return .success(["rpcVersion": 1])
            case "Echo": return .success(requestData)
            case "Fail": return .failure(.outputNotRunning, "not recording")
            default: return .failure(.unknownRequestType, "unknown request \(requestType)")
            }
        }
    }

    let password = "supersecretpassword"
    let auth = OBSAuthentication(password: "supersecretpassword", salt: "lM1GncleQOaCu9lT1yeUZhFYnqhsLLP1G5lAGo3ixaI=",
                                 challenge: "+IxH4CnCiqpX1rM9scsNynZzbOe4KhDeYcTNS3PDaeY=")

    func decode(_ frame: OBSFrame, _ encoding: OBSEncoding) throws -> OBSValue {
        do throws(OBSClose) { return try OBSCodec.decode(frame, as: encoding) } catch { XCTFail("\(error)"); return .null }
    }

    func frames(_ r: OBSSession.Reaction) -> [OBSFrame] {
        if case .send(let f) = r { return f }
        XCTFail("expected frames, got \(r)")
        return []
    }

    func identified(_ encoding: OBSEncoding, subscriptions: Int64? = nil, handler: TableHandler = TableHandler()) throws -> OBSSession {
        let s = OBSSession(encoding: encoding, authentication: auth, handler: handler)
        var d: OBSValue = ["rpcVersion": 1, "authentication": .string(OBSAuthentication.answer(password: password, salt: auth.salt, challenge: auth.challenge))]
        if let subscriptions, case .object(var o) = d { o["eventSubscriptions"] = .int(subscriptions); d = .object(o) }
        let reply = frames(s.receive(OBSCodec.encode(["op": 1, "d": d], as: encoding)))
        XCTAssertEqual(try reply.map { try decode($0, encoding) }, [["op": 2, "d": ["negotiatedRpcVersion": 1]]])
        return s
    }

    /// The protocol document's example password, salt and challenge give the string Python's hashlib computes for them.
    func testAuthenticationStringMatchesTheProtocolsExample() {
        XCTAssertEqual(OBSAuthentication.answer(password: password, salt: auth.salt, challenge: auth.challenge),
                       "1Ct943GAT+6YQUUX47Ia/ncufilbe6+oD6lY+5kaCu4=")
        XCTAssertTrue(auth.verify("1Ct943GAT+6YQUUX47Ia/ncufilbe6+oD6lY+5kaCu4="))
        XCTAssertFalse(auth.verify("1Ct943GAT+6YQUUX47Ia/ncufilbe6+oD6lY+5kaCu5="))
        XCTAssertNotEqual(OBSAuthentication(password: "x").challenge, OBSAuthentication(password: "x").challenge, "a fresh challenge per connection")
        XCTAssertEqual(OBSAuthentication.generatePassword().count, 24)
    }

    /// Hello names the version and the challenge; Identify with the right answer gives Identified,
    /// in JSON text frames and in MessagePack binary frames.
    func testHandshakeInBothEncodings() throws {
        for encoding in OBSEncoding.allCases {
            let s = OBSSession(encoding: encoding, authentication: auth, handler: TableHandler())
            let hello = try decode(s.hello(), encoding)
            XCTAssertEqual(hello["op"], 0)
            XCTAssertEqual(hello["d"]?["rpcVersion"], 1)
            XCTAssertEqual(hello["d"]?["authentication"]?["challenge"]?.string, auth.challenge)
            if encoding == .json { guard case .text = s.hello() else { return XCTFail("JSON is text") } }
            else { guard case .binary = s.hello() else { return XCTFail("MessagePack is binary") } }
            _ = try identified(encoding)
        }
    }

    /// Each broken handshake closes with its code: wrong password 4009, no authentication 4009,
    /// rpcVersion 2 4010, a 4.x request 4010, a request before Identify 4007, Identify twice 4008,
    /// unknown op 4006, no d 4003, d not an object 4004, not JSON 4002, binary on JSON 4002, text
    /// on MessagePack 4002.
    func testEveryMalformedHandshakeClosesWithItsCode() throws {
        func close(_ frame: OBSFrame, _ encoding: OBSEncoding = .json, session: OBSSession? = nil) -> OBSCloseCode? {
            if case .close(let c) = (session ?? OBSSession(encoding: encoding, authentication: auth, handler: TableHandler())).receive(frame) { return c.code }
            return nil
        }
        let json = { (v: OBSValue) in OBSCodec.encode(v, as: .json) }
        XCTAssertEqual(close(json(["op": 1, "d": ["rpcVersion": 1, "authentication": "wrong"]])), .authenticationFailed)
        XCTAssertEqual(close(json(["op": 1, "d": ["rpcVersion": 1]])), .authenticationFailed)
        XCTAssertEqual(close(json(["op": 1, "d": ["rpcVersion": 2, "authentication": "x"]])), .unsupportedRpcVersion)
        XCTAssertEqual(close(json(["op": 1, "d": ["rpcVersion": "1"]])), .invalidDataFieldType)
        XCTAssertEqual(close(json(["op": 1, "d": [:]])), .missingDataField)
        XCTAssertEqual(close(json(["request-type": "GetVersion", "message-id": "1"])), .unsupportedRpcVersion)
        XCTAssertEqual(close(json(["op": 6, "d": ["requestType": "GetVersion", "requestId": "1"]])), .notIdentified)
        XCTAssertEqual(close(json(["op": 42, "d": [:]])), .unknownOpCode)
        XCTAssertEqual(close(json(["d": [:]])), .unknownOpCode)
        XCTAssertEqual(close(json(["op": 1])), .missingDataField)
        XCTAssertEqual(close(json(["op": 1, "d": 5])), .invalidDataFieldType)
        XCTAssertEqual(close(.text("{not json")), .messageDecodeError)
        XCTAssertEqual(close(.text("[1,2]")), .messageDecodeError)
        XCTAssertEqual(close(.binary([0x80])), .messageDecodeError)
        XCTAssertEqual(close(.text("{}"), .msgpack), .messageDecodeError)
        XCTAssertEqual(close(.binary([0xC1]), .msgpack), .messageDecodeError)
        let s = try identified(.json)
        XCTAssertEqual(close(json(["op": 1, "d": ["rpcVersion": 1]]), session: s), .alreadyIdentified)
        XCTAssertEqual(close(json(["op": 7, "d": [:]]), session: s), .unknownOpCode)
        XCTAssertEqual(close(json(["op": 6, "d": ["requestId": "1"]]), session: s), .missingDataField)
        XCTAssertEqual(close(json(["op": 6, "d": ["requestType": 5, "requestId": "1"]]), session: s), .invalidDataFieldType)
    }

    /// A request's answer mirrors its type and id, with the handler's status and data; an
    /// unknown request gets 204 and the session goes on.
    func testRequestsAreAnsweredWithTheirStatus() throws {
        for encoding in OBSEncoding.allCases {
            let s = try identified(encoding)
            let r = frames(s.receive(OBSCodec.encode(["op": 6, "d": ["requestType": "Echo", "requestId": "a", "requestData": ["x": 1]]], as: encoding)))
            XCTAssertEqual(try decode(r[0], encoding), ["op": 7, "d": ["requestType": "Echo", "requestId": "a",
                                                                       "requestStatus": ["result": true, "code": 100], "responseData": ["x": 1]]])
            let u = try decode(frames(s.receive(OBSCodec.encode(["op": 6, "d": ["requestType": "NoSuchThing", "requestId": "b"]], as: encoding)))[0], encoding)
            XCTAssertEqual(u["d"]?["requestStatus"]?["code"], 204)
            XCTAssertEqual(u["d"]?["requestStatus"]?["result"], false)
            let n = try decode(frames(s.receive(OBSCodec.encode(["op": 6, "d": ["requestType": "GetVersion", "requestId": 417]], as: encoding)))[0], encoding)
            XCTAssertEqual(n["d"]?["requestId"], 417, "a numeric requestId (obsws-python's) is echoed as it came")
            XCTAssertTrue(s.isIdentified)
        }
    }

    /// Batches run in order, Sleep included; haltOnFailure stops at the first failure and
    /// answers only what ran; an unknown execution type answers each request with 206.
    func testBatchesRunInOrderAndHaltOnFailure() throws {
        let handler = TableHandler()
        let s = try identified(.json, handler: handler)
        let batch: OBSValue = ["op": 8, "d": ["requestId": "B", "haltOnFailure": true, "requests": [
            ["requestType": "GetVersion", "requestId": "1"], ["requestType": "Sleep", "requestData": ["sleepMillis": 50]],
            ["requestType": "Fail"], ["requestType": "GetVersion"]]]]
        let started = Date()
        let r = try decode(frames(s.receive(OBSCodec.encode(batch, as: .json)))[0], .json)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.05, "Sleep slept")
        XCTAssertEqual(r["op"], 9)
        XCTAssertEqual(r["d"]?["requestId"], "B")
        let codes = r["d"]?["results"]?.array?.compactMap { $0["requestStatus"]?["code"] }
        XCTAssertEqual(codes, [100, 100, 501], "halted after the failure")
        XCTAssertEqual(handler.calls, ["GetVersion", "Fail"])
        let all = try decode(frames(s.receive(OBSCodec.encode(["op": 8, "d": ["requestId": "C", "requests": [["requestType": "Fail"], ["requestType": "GetVersion"]]]], as: .json)))[0], .json)
        XCTAssertEqual(all["d"]?["results"]?.array?.count, 2, "without haltOnFailure every request runs")
        let odd = try decode(frames(s.receive(OBSCodec.encode(["op": 8, "d": ["requestId": "D", "executionType": 7, "requests": [["requestType": "GetVersion"]]]], as: .json)))[0], .json)
        XCTAssertEqual(odd["d"]?["results"]?.array?.first?["requestStatus"]?["code"], 206)
        if case .close(let c) = s.receive(OBSCodec.encode(["op": 8, "d": ["requestId": "E"]], as: .json)) { XCTAssertEqual(c.code, .missingDataField) } else { XCTFail() }
    }

    /// A client receives exactly the categories it subscribed to: none means no event ever;
    /// Reidentify changes it; an unidentified client gets nothing.
    func testEventSubscriptionsAreHonouredExactly() throws {
        let record = OBSEvent(type: "RecordStateChanged", intent: .outputs, data: ["outputActive": true, "outputState": "OBS_WEBSOCKET_OUTPUT_STARTED"])
        let mute = OBSEvent(type: "InputMuteStateChanged", intent: .inputs, data: ["inputName": "Mic/Aux", "inputMuted": true])
        let unidentified = OBSSession(encoding: .json, authentication: auth, handler: TableHandler())
        XCTAssertNil(unidentified.frame(for: record))
        let none = try identified(.json, subscriptions: 0)
        XCTAssertNil(none.frame(for: record))
        XCTAssertNil(none.frame(for: mute))
        let outputs = try identified(.msgpack, subscriptions: OBSEventSubscription.outputs.rawValue)
        let f = try XCTUnwrap(outputs.frame(for: record))
        XCTAssertEqual(try decode(f, .msgpack), ["op": 5, "d": ["eventType": "RecordStateChanged", "eventIntent": 64, "eventData": record.data!]])
        XCTAssertNil(outputs.frame(for: mute))
        let everything = try identified(.json)
        XCTAssertNotNil(everything.frame(for: mute), "no eventSubscriptions means All")
        _ = frames(everything.receive(OBSCodec.encode(["op": 3, "d": ["eventSubscriptions": 8]], as: .json)))
        XCTAssertNil(everything.frame(for: record), "Reidentify replaced the subscriptions")
        XCTAssertNotNil(everything.frame(for: mute))
    }

    /// Random frames in both encodings, before and after Identify: every one answered or closed, none traps.
    func testAStormOfMalformedFramesNeverTraps() throws {
        var rng = SystemRandomNumberGenerator()
        for encoding in OBSEncoding.allCases {
            let s = try identified(encoding)
            for i in 0..<5_000 {
                let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let frame: OBSFrame = i % 2 == 0 ? .binary(bytes) : .text(String(decoding: bytes, as: UTF8.self))
                switch s.receive(frame) {
                case .send, .close: break
                }
            }
        }
    }
}
