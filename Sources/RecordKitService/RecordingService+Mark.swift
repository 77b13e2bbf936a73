import Foundation

extension RecordingService {
    /// `mark`: adds a marker at the current broadcast time; every handler gets it
    /// (`broadcastAnnotated`), the file as a chapter. Publishes a `marker` event.
    func mark(_ options: CommandOptions) throws(ControlError) -> ControlResult {
        let active = try current()
        let title = options.title ?? ""
        guard title.utf8.count <= 1024, !title.contains(where: { $0.isNewline }) else {
            throw ControlError(.badArgument, "a marker's title is one line of at most 1024 bytes")
        }
        let time = try active.session.mark(title: title)
        publish(ServiceEvent(kind: "marker", recordingId: active.id, state: active.session.state.rawValue,
                             reason: title.isEmpty ? "marker" : title, time: time, at: Self.now()))
        var r = ControlResult()
        r.time = time
        r.state = active.session.state.rawValue
        return r
    }
}
