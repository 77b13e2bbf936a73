import RecordKit

/// A message from the host (the recorder) to an extension.
package enum HostMessage: Sendable {
    /// Opens the handshake: the protocol versions and optional features the host supports.
    case hello(protocols: [Int], features: [String])
    /// Announces shared memory that samples will point into; a memfd travels with the message
    /// (SCM_RIGHTS) unless `sysvID` names a System V segment instead.
    case region(id: Int, size: Int, sysvID: Int32?)
    /// Announces the format samples with this `id` have.
    case format(id: Int, description: FormatDescription)
    /// `broadcastStarted(setupInfo:context:)`: the setup values, every stream the extension
    /// will receive with the id of its format (each announced by a `format` message before),
    /// and the handler's working directory, if it has one.
    case started(setup: [String: String], formats: [SampleBufferType: Int], workingDirectory: String?)
    /// `processSampleBuffer(_:with:)`.
    case sample(SampleHeader)
    /// `broadcastPaused()`.
    case paused
    /// `broadcastResumed()`.
    case resumed
    /// `broadcastAnnotated(_:)`: a marker's title, broadcast time and application values
    /// (only with the feature ``ExtensionProtocol/featureAnnotations``).
    case annotated(BroadcastAnnotation)
    /// `broadcastFinished()`; `discarding` is ``BroadcastContext/isDiscarding``.
    case finished(discarding: Bool)

    /// The `type` member.
    package var type: String {
        switch self {
        case .hello: return "hello"
        case .region: return "region"
        case .format: return "format"
        case .started: return "started"
        case .sample: return "sample"
        case .paused: return "paused"
        case .resumed: return "resumed"
        case .annotated: return "annotated"
        case .finished: return "finished"
        }
    }

    /// Whether the extension answers this message with `done` (the five handler calls do).
    package var isCall: Bool {
        switch self {
        case .started, .sample, .paused, .resumed, .annotated, .finished: return true
        case .hello, .region, .format: return false
        }
    }

    /// The message as JSON.
    package var jsonValue: JSONValue {
        switch self {
        case .hello(let protocols, let features):
            return ["type": "hello", "protocols": .array(protocols.map { .int(Int64($0)) }),
                    "features": .array(features.map { .string($0) })]
        case .region(let id, let size, let sysvID):
            var o: [String: JSONValue] = ["type": "region", "region": .int(Int64(id)), "size": .int(Int64(size))]
            if let sysvID { o["sysv"] = .int(Int64(sysvID)) }
            return .object(o)
        case .format(let id, let description):
            return ["type": "format", "format": .int(Int64(id)), "description": description.jsonValue]
        case .started(let setup, let formats, let workingDirectory):
            var o: [String: JSONValue] = [
                "type": "started", "setup": .object(setup.mapValues { .string($0) }),
                "streams": .object(Dictionary(uniqueKeysWithValues: formats.map { ($0.key.rawValue, JSONValue.int(Int64($0.value))) }))]
            if let workingDirectory { o["workingDirectory"] = .string(workingDirectory) }
            return .object(o)
        case .sample(let header): return header.jsonValue
        case .paused: return ["type": "paused"]
        case .resumed: return ["type": "resumed"]
        case .annotated(let a):
            return ["type": "annotated", "title": .string(a.title), "time": .int(a.time.nanoseconds),
                    "info": .object(a.applicationInfo.mapValues { .string($0) })]
        case .finished(let discarding): return ["type": "finished", "discarding": .bool(discarding)]
        }
    }

    /// Reads a message.
    package init(json: JSONValue) throws(SchemaError) {
        let o = try ObjectReader(json, path: "")
        switch try o.requiredString("type") {
        case "hello":
            guard let protocols = o.members["protocols"]?.array?.compactMap({ $0.int }) else {
                throw SchemaError("protocols", "expected an array of integers")
            }
            let features = o.members["features"]?.array?.compactMap(\.string) ?? []
            self = .hello(protocols: protocols.map { Int($0) }, features: features)
        case "region":
            guard let id = try o.int("region", in: 0...Int64(Int32.max)), let size = try o.int("size", in: 0...Int64.max) else {
                throw SchemaError("region", "region and size are required")
            }
            self = .region(id: Int(id), size: Int(size), sysvID: try o.int("sysv", in: 0...Int64(Int32.max)).map { Int32($0) })
        case "format":
            guard let id = try o.int("format", in: 0...Int64(Int32.max)) else { throw SchemaError("format", "missing (required)") }
            self = .format(id: Int(id), description: try FormatDescription(json: try o.required("description")))
        case "started":
            var setup: [String: String] = [:]
            for (k, v) in try o.object("setup")?.members ?? [:] {
                guard let s = v.string else { throw SchemaError("setup.\(k)", "expected a string") }
                setup[k] = s
            }
            var formats: [SampleBufferType: Int] = [:]
            for (k, v) in try o.object("streams")?.members ?? [:] {
                guard let t = SampleBufferType(rawValue: k) else { throw SchemaError("streams.\(k)", "unknown stream") }
                guard case .int(let id) = v, (0...Int64(Int32.max)).contains(id) else { throw SchemaError("streams.\(k)", "expected a format id") }
                formats[t] = Int(id)
            }
            self = .started(setup: setup, formats: formats, workingDirectory: try o.string("workingDirectory"))
        case "sample": self = .sample(try SampleHeader(o))
        case "paused": self = .paused
        case "resumed": self = .resumed
        case "annotated":
            var info: [String: String] = [:]
            for (k, v) in try o.object("info")?.members ?? [:] {
                guard let s = v.string else { throw SchemaError("info.\(k)", "expected a string") }
                info[k] = s
            }
            guard let time = try o.int("time", in: 0...Int64.max) else { throw SchemaError("time", "missing (required)") }
            self = .annotated(BroadcastAnnotation(title: try o.string("title") ?? "", time: .nanoseconds(time), applicationInfo: info))
        case "finished": self = .finished(discarding: try o.bool("discarding") ?? false)
        case let other: throw SchemaError("type", "unknown message type \"\(other)\"")
        }
    }
}
