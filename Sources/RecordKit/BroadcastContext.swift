/// What a handler may tell the pipeline, as `RPBroadcastSampleHandler`'s
/// `finishBroadcastWithError(_:)` and the service info of ReplayKit's broadcast controller.
///
/// Safe to call from any thread, including from inside a handler call.
public protocol BroadcastContext: Sendable {
    /// Ends this handler's broadcast with an error. The handler receives no further samples;
    /// ``BroadcastSampleHandler/broadcastFinished()`` is still called once, so it can clean up.
    /// Other handlers and the recording go on unless this was the only handler.
    func finishBroadcast(with error: BroadcastError)

    /// Publishes information about the broadcast (for example `"path"` of the file written, or
    /// `"state"` of a network connection). Shown by `recordctl status`; never put secrets here.
    /// Keys are merged into what was published before; a key published with an empty value is
    /// removed (an error that no longer holds). Each change of `"state"` is also an event.
    func publish(serviceInfo: [String: String])

    /// The sample types this handler will receive in this broadcast: those its
    /// ``BroadcastSampleHandler/input`` asked for that the recording actually has (no audio
    /// server means no audio types). Known from ``BroadcastSampleHandler/broadcastStarted(setupInfo:context:)`` on.
    var streams: Set<SampleBufferType> { get }

    /// Whether the recording is being discarded: a handler then deletes what it wrote instead
    /// of finalizing it. Meaningful during ``BroadcastSampleHandler/broadcastFinished()``.
    var isDiscarding: Bool { get }
}

/// User-supplied setup values of a handler (`--setup key=value`, or built-in options).
public struct SetupInfo: Sendable, Hashable {
    /// The values, by key.
    public var values: [String: String]

    /// Creates setup info.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// The value for `key`, if present.
    public subscript(key: String) -> String? { values[key] }
}

/// An error that ends a handler's broadcast, with a message that says what failed and what to do.
public struct BroadcastError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable category for programs (exit codes, status).
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Bad setup or arguments.
        case invalidSetup
        /// Writing output failed (disk full, permission).
        case outputFailed
        /// The network peer failed or refused.
        case networkFailed
        /// The handler could not keep up (audio would have been dropped).
        case overrun
        /// Anything else.
        case internalError
    }
    /// The category.
    public var kind: Kind
    /// A human-readable message: what failed, with what input, what to do.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
