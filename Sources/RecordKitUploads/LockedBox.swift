import Synchronization

/// A value shared between the upload thread and a body-streaming thread (a `Mutex` cannot be
/// captured by an escaping closure: it is not copyable). Thread-safe.
final class LockedBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    /// The current value.
    var value: Value { mutex.withLock { $0 } }

    /// Replaces the value.
    func set(_ value: Value) { mutex.withLock { $0 = value } }
}
