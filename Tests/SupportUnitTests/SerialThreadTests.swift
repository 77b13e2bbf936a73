import Foundation
import Glibc
import RecordKitSupport
import Synchronization
import XCTest

/// `SerialThread` and `RepeatingThread`: one named thread each, jobs one at a time in order on
/// it, `sync` on the thread itself does not deadlock, the thread ends when closed (the process's
/// thread count goes back), and jobs after close still run, serially.
final class SerialThreadTests: XCTestCase {
    /// The kernel names of this process's threads.
    private func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 where !condition() { usleep(10_000) }
        return condition()
    }

    func testJobsRunInOrderOnOneNamedThreadThatEndsWhenClosed() throws {
        let before = threadNames().count
        let worker = SerialThread(name: "rk-test-serial-with-a-long-name")
        XCTAssertEqual(worker.name, "rk-test-serial-", "the kernel keeps 15 bytes")
        let order = Mutex<[Int]>([])
        let names = Mutex<Set<String>>([])
        for i in 0..<1000 {
            worker.async {
                order.withLock { $0.append(i) }
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                names.withLock { _ = $0.insert(name.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
        let count = worker.sync { order.withLock { $0.count } }
        XCTAssertEqual(count, 1000, "sync runs after everything queued before it")
        XCTAssertEqual(order.withLock { $0 }, Array(0..<1000), "in the order given")
        XCTAssertEqual(names.withLock { $0 }, ["rk-test-serial-"], "every job on the one thread, named")
        XCTAssertTrue(threadNames().contains("rk-test-serial-"))
        XCTAssertEqual(threadNames().count, before + 1, "one thread, idle or busy")
        // sync from a job on the thread runs at once instead of deadlocking; errors come through typed.
        struct Refused: Error {}
        let nested: Int = worker.sync { worker.sync { 7 } }
        XCTAssertEqual(nested, 7)
        XCTAssertThrowsError(try worker.sync { () throws(Refused) -> Int in throw Refused() })
        worker.close()
        XCTAssertTrue(waitUntil { !threadNames().contains("rk-test-serial-") }, "closed: the thread ended")
        // After close, jobs run on the caller's thread, one at a time.
        let late = Mutex(0)
        worker.async { late.withLock { $0 += 1 } }
        XCTAssertEqual(worker.sync { late.withLock { $0 } }, 1)
    }

    func testClosingFromAJobOnTheThreadEndsItAfterTheJob() {
        let worker = SerialThread(name: "rk-test-self")
        let done = Atomic<Bool>(false)
        worker.async {
            worker.close()
            done.store(true, ordering: .releasing)
        }
        XCTAssertTrue(waitUntil { done.load(ordering: .acquiring) && !threadNames().contains("rk-test-self") })
    }

    func testRepeatingThreadCallsOnItsOwnThreadUntilStopped() {
        let calls = Atomic<Int>(0)
        let names = Mutex<Set<String>>([])
        let timer = RepeatingThread(name: "rk-test-tick", firstAfterSeconds: 0.01, everySeconds: 0.02) {
            calls.add(1, ordering: .relaxed)
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            names.withLock { _ = $0.insert(name.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        XCTAssertTrue(timer.isRunning)
        XCTAssertTrue(waitUntil { calls.load(ordering: .relaxed) >= 5 }, "it repeats")
        timer.stop()
        XCTAssertFalse(timer.isRunning)
        XCTAssertFalse(threadNames().contains("rk-test-tick"), "stop waits for the thread to end")
        let stoppedAt = calls.load(ordering: .relaxed)
        usleep(100_000)
        XCTAssertEqual(calls.load(ordering: .relaxed), stoppedAt, "no call after stop")
        XCTAssertEqual(names.withLock { $0 }, ["rk-test-tick"], "every call on its own named thread")
    }
}
