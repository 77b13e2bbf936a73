import RecordKitSupport

/// Where every encoder of this process reports how long each encode took (sending one frame
/// or audio block and taking the packets it made ready), for the metrics endpoint's
/// `recordkit_encode_seconds` histogram. Nobody observes by default, and then an encode costs
/// one uncontended lock read more (no clock read). The observer is called on the encoding
/// thread: it must be quick (a histogram update) and must not block.
package enum EncodeTimeObserver {
    /// What an encoder encodes.
    package enum Kind: String, Sendable {
        case video, audio
    }

    /// One observer: `(kind, encoder name, seconds)`.
    package final class Observer: Sendable {
        let observe: @Sendable (Kind, String, Double) -> Void
        /// An observer calling `observe` for every encode.
        package init(_ observe: @escaping @Sendable (Kind, String, Double) -> Void) { self.observe = observe }
    }

    private static let current = LateBound<Observer>()

    /// Sets (or with nil removes) the process's observer.
    package static func set(_ observer: Observer?) { current.bind(observer) }

    /// The observer, if any; ``CodecContext`` reads it once per encode and times the encode
    /// only when there is one.
    static var observer: Observer? { current.current }
}
