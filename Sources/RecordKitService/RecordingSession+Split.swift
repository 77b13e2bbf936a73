import RecordKitPipeline

extension RecordingSession {
    /// OBS's `SplitRecordFile`: the handler that performs the action `split` (the file) closes
    /// its current part at the next video key frame and continues into a new one, no frame lost
    /// or repeated between them. Blocks until the closed part is finalized (a few seconds at
    /// most for an hour of video; `timeout` seconds at most) and returns its path and its
    /// length in seconds. Throws `invalid_state` when the recording writes no file.
    package func splitFile(timeout: Double = 120) throws(ControlError) -> (path: String, seconds: Double?) {
        let answer: (handler: String, result: [String: String])
        do throws(ControlError) {
            answer = try perform(action: "split", arguments: [:], timeout: timeout)
        } catch where error.code == .invalidState && (state == .recording || state == .paused) {
            throw ControlError(.invalidState, "this recording writes no file to split (it was started with --no-file)")
        }
        guard let path = answer.result["path"] else { throw ControlError(.failed, "the file handler split without saying where the part went") }
        return (path, answer.result["seconds"].flatMap(Double.init))
    }
}
