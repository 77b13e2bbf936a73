import RecordKit

/// A message from an extension to the host.
package enum ExtensionMessage: Sendable, Equatable {
    /// Answers the host's hello: the chosen protocol version, the features the extension uses,
    /// and optionally the input its handler declares (manifest form), for a consistency check.
    case hello(protocolVersion: Int, features: [String], input: JSONValue?)
    /// The handler call in progress returned; `released` lists refs the extension no longer
    /// reads; `error` is set when `broadcastStarted` threw (the broadcast is refused).
    case done(released: [Int], error: BroadcastError?)
    /// Refs the extension no longer reads (sent at any time).
    case release([Int])
    /// ``BroadcastContext/publish(serviceInfo:)`` (at any time).
    case publish([String: String])
    /// ``BroadcastContext/finishBroadcast(with:)`` (at any time).
    case finish(BroadcastError)

    /// The message as JSON.
    package var jsonValue: JSONValue {
        switch self {
        case .hello(let version, let features, let input):
            var o: [String: JSONValue] = ["type": "hello", "protocol": .int(Int64(version)), "features": .array(features.map { .string($0) })]
            if let input { o["input"] = input }
            return .object(o)
        case .done(let released, let error):
            var o: [String: JSONValue] = ["type": "done"]
            if !released.isEmpty { o["released"] = .array(released.map { .int(Int64($0)) }) }
            if let error { o["error"] = Self.json(error) }
            return .object(o)
        case .release(let refs): return ["type": "release", "refs": .array(refs.map { .int(Int64($0)) })]
        case .publish(let info): return ["type": "publish", "info": .object(info.mapValues { .string($0) })]
        case .finish(let error): return ["type": "finish", "error": Self.json(error)]
        }
    }

    /// Reads a message.
    package init(json: JSONValue) throws(SchemaError) {
        let o = try ObjectReader(json, path: "")
        switch try o.requiredString("type") {
        case "hello":
            guard let version = try o.int("protocol", in: 0...1_000_000) else { throw SchemaError("protocol", "missing (required)") }
            self = .hello(protocolVersion: Int(version), features: o.members["features"]?.array?.compactMap(\.string) ?? [],
                          input: o.members["input"])
        case "done":
            self = .done(released: try Self.refs(o.members["released"], path: "released"),
                         error: try o.members["error"].map { v throws(SchemaError) in try Self.error(v, path: "error") })
        case "release": self = .release(try Self.refs(o.members["refs"], path: "refs"))
        case "publish":
            var info: [String: String] = [:]
            for (k, v) in try o.object("info")?.members ?? [:] {
                guard let s = v.string else { throw SchemaError("info.\(k)", "expected a string, got \(v.kindDescription)") }
                info[k] = s
            }
            self = .publish(info)
        case "finish": self = .finish(try Self.error(try o.required("error"), path: "error"))
        case let other: throw SchemaError("type", "unknown message type \"\(other)\"")
        }
    }

    private static func json(_ e: BroadcastError) -> JSONValue { ["kind": .string(e.kind.rawValue), "message": .string(e.message)] }

    private static func error(_ v: JSONValue, path: String) throws(SchemaError) -> BroadcastError {
        let o = try ObjectReader(v, path: path)
        let kind = try o.string("kind").flatMap(BroadcastError.Kind.init(rawValue:)) ?? .internalError
        return BroadcastError(kind, try o.string("message") ?? "no message")
    }

    private static func refs(_ v: JSONValue?, path: String) throws(SchemaError) -> [Int] {
        guard let v else { return [] }
        guard let a = v.array else { throw SchemaError(path, "expected an array of integers") }
        return try a.map { e throws(SchemaError) -> Int in
            guard case .int(let i) = e, i >= 0, i <= Int64(Int32.max) else { throw SchemaError(path, "expected an array of integers") }
            return Int(i)
        }
    }
}
