import Foundation
import Synchronization

/// Load for contract tests: `count` threads that spin until `stop()`, competing with capture,
/// encoding and handlers for the machine's cores.
final class BusyThreads: Sendable {
    private let stopFlag = Atomic<Bool>(false)
    private let done = DispatchGroup()

    /// Starts `count` spinning threads.
    init(count: Int = 2) {
        for _ in 0..<count {
            done.enter()
            Thread.detachNewThread { [self] in
                var x: UInt64 = 1
                while !self.stopFlag.load(ordering: .relaxed) { for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1 } }
                if x == 42 { print(x) }
                self.done.leave()
            }
        }
    }

    /// Stops the threads and waits for them.
    func stop() {
        stopFlag.store(true, ordering: .relaxed)
        done.wait()
    }
}
