extension RecordingService {
    /// Starts watching the display and audio server this service records by default (its own
    /// `DISPLAY` and `PULSE_SERVER`), idle or not: `status` reports the last probe, and each change
    /// is an `availability-changed` event whose reason says what went or came back.
    package func startAvailabilityMonitor() {
        availabilityMonitor.start { [weak self] old, new in
            var what: [String] = []
            if old.display.reachable != new.display.reachable { what.append(new.display.reason) }
            if old.audio.reachable != new.audio.reachable { what.append(new.audio.reason) }
            self?.publish(ServiceEvent(kind: "availability-changed", state: new.available ? "available" : "unavailable",
                                       reason: what.joined(separator: "; ") + " (\(new.reason))", at: Self.now()))
        }
    }
}
