/// What a handler may tell the pipeline, and what it learns about the broadcast, as the
/// `RPBroadcastSampleHandler` methods `finishBroadcastWithError(_:)` and
/// `updateServiceInfo(_:)` do on iOS.
///
/// Safe to call from any thread, including from inside a handler call. Everything a handler
/// needs to set itself up (which streams come, in which format) is known when
/// ``BroadcastSampleHandler/broadcastStarted(setupInfo:context:)`` is called: the pipeline
/// opens its encoders first, so a handler never waits for a first sample to learn a format.
public protocol BroadcastContext: Sendable {
    /// Ends this handler's broadcast with an error. The handler receives no further samples;
    /// ``BroadcastSampleHandler/broadcastFinished()`` is still called once, so it can clean up.
    /// Other handlers and the recording go on unless this was the only handler.
    /// ReplayKit's spelling is ``finishBroadcastWithError(_:)``.
    func finishBroadcast(with error: BroadcastError)

    /// Publishes information about the broadcast (for example `"path"` of the file written, or
    /// `"state"` of a network connection), merged into what was published before. Shown by
    /// `recordctl status`; never put secrets here. A key published with an empty value is removed
    /// (an error that no longer holds); each change of `"state"` is also an event.
    /// ReplayKit's spelling is ``updateServiceInfo(_:)``.
    func publish(serviceInfo: [String: String])

    /// The sample types this handler will receive in this broadcast: those its
    /// ``BroadcastSampleHandler/input`` asked for that the recording actually has (no audio
    /// server means no audio types). Known from ``BroadcastSampleHandler/broadcastStarted(setupInfo:context:)`` on.
    var streams: Set<SampleBufferType> { get }

    /// The format of every stream in ``streams``, known from
    /// ``BroadcastSampleHandler/broadcastStarted(setupInfo:context:)`` on, before any sample:
    /// ``FormatDescription/encoded(_:)`` (codec, global header, size or sample rate, time
    /// base) for encoded streams, ``FormatDescription/video(_:)`` or ``FormatDescription/audio(_:)``
    /// for raw ones. Every sample of a stream carries this same description.
    var formats: [SampleBufferType: FormatDescription] { get }

    /// A directory private to this handler in this recording, for work in progress that must
    /// survive a crash of the recorder (a file being written), or nil when the recording has
    /// none (a foreground `recordctl record`). After a crash the service hands it to the
    /// extension's recovery hook (``RecoverableBroadcastHandler``). A handler empties it once
    /// everything is delivered (or discarded); whatever it leaves there after
    /// ``BroadcastSampleHandler/broadcastFinished()`` counts as undelivered, and the service
    /// keeps it and says where.
    var workingDirectory: String? { get }

    /// Whether the recording is being discarded: a handler then deletes what it wrote instead
    /// of finalizing it. Meaningful during ``BroadcastSampleHandler/broadcastFinished()``.
    var isDiscarding: Bool { get }

    /// Sends `event` to whoever watches the recording (the service's event stream). For what
    /// happens on the handler's own initiative (a file part finalized); answers to an action
    /// go back through the action's completion instead. Any thread. A context that has no event
    /// stream (an extension's own process, for now) drops it: the default does nothing.
    func publish(event: BroadcastEvent)
}

extension BroadcastContext {
    /// ReplayKit's `finishBroadcastWithError(_:)`: the same as ``finishBroadcast(with:)``.
    public func finishBroadcastWithError(_ error: BroadcastError) { finishBroadcast(with: error) }

    /// ReplayKit's `updateServiceInfo(_:)`: the same as ``publish(serviceInfo:)``.
    public func updateServiceInfo(_ serviceInfo: [String: String]) { publish(serviceInfo: serviceInfo) }

    /// Drops `event`: a context without an event stream.
    public func publish(event: BroadcastEvent) {}

    /// The encoded format of `type`'s stream, when this handler receives it encoded.
    public func encodedFormat(of type: SampleBufferType) -> EncodedFormat? {
        if case .encoded(let format)? = formats[type] { return format }
        return nil
    }
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

    /// The ``message``.
    public var description: String { message }
}
