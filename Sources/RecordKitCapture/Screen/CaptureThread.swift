import Foundation
import Glibc

/// One dedicated POSIX thread that can be joined (Foundation's `Thread` cannot).
///
/// Capture blocks in the X server round trip and sleeps to absolute deadlines, so it must not
/// run on Swift's cooperative pool (one thread per core, so 2 on a 2-core machine; docs/ARCHITECTURE.md, "Threads").
package final class CaptureThread: @unchecked Sendable {
    private let thread: pthread_t
    private var finished = false

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    private init(thread: pthread_t) { self.thread = thread }

    /// Starts a thread named `name` (at most 15 bytes are kept) running `body`, or returns the
    /// `pthread_create` error number.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Result<CaptureThread, ThreadStartError> {
        let context = Unmanaged.passRetained(Start(String(decoding: name.utf8.prefix(15), as: UTF8.self), body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
            // Foundation sets the kernel thread name (shown by top -H, gdb); pthread_setname_np
            // itself is hidden from Swift's Glibc module (_GNU_SOURCE).
            Thread.current.name = start.name
            start.body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            return .failure(ThreadStartError(code: status))
        }
        return .success(CaptureThread(thread: thread))
    }

    /// Whether the caller runs on this thread.
    package var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Waits for the thread to end (or, when called on the thread itself, detaches it so it
    /// cleans up after itself). Call at most once; later calls do nothing.
    package func joinOrDetach() {
        guard !finished else { return }
        finished = true
        if isCurrent {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
