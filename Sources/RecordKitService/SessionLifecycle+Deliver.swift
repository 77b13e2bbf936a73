import Foundation

extension SessionLifecycle {
    /// `stop` with `options.output`: checks the destination before anything stops (a bad one is
    /// refused and the recording goes on), stops, then moves the recording's file there
    /// (``OutputDelivery``). A move that fails leaves the file where it was and says so in the
    /// result's warnings (exit 70 for `recordctl stop`); the recording is never lost.
    func stop(deliveringTo options: CommandOptions?) throws(ControlError) -> ControlResult {
        guard let destination = options?.output else { return try finish(discard: false) }
        let overwrite = options?.overwrite == true
        let active = try current()
        guard active.session.status.handlers.contains(where: { $0.serviceInfo["path"] != nil }) else {
            throw ControlError(.badArgument, "this recording writes no file (--no-file), so there is nothing to deliver to \(destination)")
        }
        try OutputDelivery.check(destination, overwrite: overwrite)
        return try finish(discard: false) { source throws(ControlError) in
            try OutputDelivery.move(source, to: destination, overwrite: overwrite)
            return destination
        }
    }
}
