import Glibc

/// Ending a thread this code started, shared by ``SerialThread`` and ``RepeatingThread``.
package enum ThreadJoin {
    /// Waits for `thread` to end; when called on `thread` itself (its own job or body ends it),
    /// detaches it instead, so it ends by itself once that work returns. Call once per thread.
    package static func joinOrDetach(_ thread: pthread_t) {
        if pthread_equal(pthread_self(), thread) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
