import Foundation
import RecordKitService

/// Desktop notifications through `org.freedesktop.Notifications` on the session bus, sent with
/// `gdbus call` (GLib's client, Debian's libglib2.0-bin) rather than a D-Bus binding of our own:
/// one short-lived call per notification, bounded to 5 s, off the caller's thread. Without a
/// notification server (or a session bus) the call fails and the notification is dropped,
/// logged once.
package final class DesktopNotifier: Sendable {
    private let queue = DispatchQueue(label: "recordkit.notifications")
    private let log: @Sendable (String) -> Void

    package init(log: @escaping @Sendable (String) -> Void) { self.log = log }

    /// Shows `summary` with `body` (plain text), asynchronously.
    package func notify(_ summary: String, _ body: String) {
        let log = self.log
        queue.async {
            // The texts are positional arguments ($1, $2): never parsed by the shell.
            let outcome = HookProcess.run(
                command: "exec gdbus call --session --dest org.freedesktop.Notifications --object-path /org/freedesktop/Notifications "
                    + "--method org.freedesktop.Notifications.Notify RecordKit 0 '' \"$1\" \"$2\" '[]' '{}' 5000",
                arguments: [summary, body], environment: [:], timeout: 5)
            if !outcome.succeeded {
                log("notification not shown (no notification server?): gdbus \(outcome.summary): "
                    + outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
    }

    /// Waits until the notifications asked so far were sent (tests, shutdown).
    package func flush() { queue.sync {} }
}
