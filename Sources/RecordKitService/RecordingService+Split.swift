import Foundation

extension RecordingService {
    /// `split`: forwards the action `split` to whichever handler of the recording performs it
    /// (the file; the service names no handler) and waits until the closed part is finalized;
    /// returns its path and length. The handler itself publishes the `file-part` event (as it
    /// does for the parts `--split-every` and `--split-size` close). Does not take the command
    /// lock: the handler's queue orders the split with pause, resume and stop.
    func split() throws(ControlError) -> ControlResult {
        let active = try current()
        let path = try active.session.splitFile()
        var r = ControlResult()
        r.path = path.path
        r.seconds = path.seconds
        r.state = active.session.state.rawValue
        return r
    }
}
