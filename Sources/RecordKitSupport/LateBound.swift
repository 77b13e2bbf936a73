import Synchronization

/// A reference that is bound after the closures that use it were made: callbacks set up
/// before their target exists (encoder stages before the dispatcher, capture callbacks before
/// their sink, the recorder's event callback before the recording) hold a `LateBound` and read
/// it when they run. Until ``bind(_:)`` they see nil (and drop what they carry). Reading takes
/// an uncontended lock and hands out the object itself (a class reference: no re-abstraction
/// of a closure on the hot path). Any thread.
package final class LateBound<Value: AnyObject & Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    /// An unbound reference.
    package init() {}

    /// Binds (or rebinds, or with nil unbinds) the reference.
    package func bind(_ newValue: Value?) { value.withLock { $0 = newValue } }

    /// The bound object, if any.
    package var current: Value? { value.withLock { $0 } }
}
