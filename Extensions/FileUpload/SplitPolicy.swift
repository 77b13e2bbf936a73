import RecordKit

/// When the file handler cuts its file by itself (`--split-every`, `--split-size`): at the
/// first key frame once the part holds `everySeconds` of video, or `sizeBytes` of media,
/// whichever comes first. Neither set: only on request (`recordctl split`).
package struct SplitPolicy: Sendable, Hashable {
    /// Seconds of broadcast time per part (paused spans excluded), or nil.
    package var everySeconds: Double?
    /// Bytes of encoded media per part (container overhead aside), or nil.
    package var sizeBytes: Int64?

    /// Creates a policy; the default never splits by itself.
    package init(everySeconds: Double? = nil, sizeBytes: Int64? = nil) {
        self.everySeconds = everySeconds
        self.sizeBytes = sizeBytes
    }

    /// The policy of the setup keys `splitEvery` (seconds) and `splitSize` (MB, 10^6 bytes);
    /// empty or absent: none. Throws ``BroadcastError/Kind/invalidSetup`` for a value that is
    /// not a positive number (at least one second; at least 0.1 MB).
    package init(setup: SetupInfo) throws(BroadcastError) {
        if let text = setup["splitEvery"], !text.isEmpty {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 1 else {
                throw BroadcastError(.invalidSetup, "splitEvery must be a number of seconds, at least 1, got '\(text)'")
            }
            everySeconds = seconds
        }
        if let text = setup["splitSize"], !text.isEmpty {
            guard let megabytes = Double(text), megabytes.isFinite, megabytes >= 0.1 else {
                throw BroadcastError(.invalidSetup, "splitSize must be a number of megabytes, at least 0.1, got '\(text)'")
            }
            sizeBytes = Int64(megabytes * 1_000_000)
        }
    }

    /// Whether a part that started at `originNs` and holds `bytes` is due to end at a key
    /// frame at `ptsNs`. A key frame up to 50 ms early counts: key frames are placed by time,
    /// and a 2 s interval must give 4 s parts, not 6 s ones.
    func isDue(originNs: Int64, ptsNs: Int64, bytes: Int64) -> Bool {
        if let everySeconds, ptsNs - originNs >= Int64(everySeconds * 1e9) - 50_000_000 { return true }
        if let sizeBytes, bytes >= sizeBytes { return true }
        return false
    }
}
