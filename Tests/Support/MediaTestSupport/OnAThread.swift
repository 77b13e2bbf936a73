import Foundation
import Synchronization

/// Runs a test's work on a thread of its own and waits for its result, bounded: for work that
/// may hang (an encoder that never returns must fail the test, not stall the run) or that must
/// run on a thread started now (one that inherits the caller's scheduling).
package enum OnAThread {
    /// `body`'s result, or nil when it did not return within `seconds` (the thread is left behind).
    package static func run<Value: Sendable>(timeout seconds: Double, _ body: @escaping @Sendable () -> Value) -> Value? {
        let result = Box<Value>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            result.value.withLock { $0 = body() }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.value.withLock { $0 }
    }

    private final class Box<Value: Sendable>: Sendable {
        let value = Mutex<Value?>(nil)
    }
}
