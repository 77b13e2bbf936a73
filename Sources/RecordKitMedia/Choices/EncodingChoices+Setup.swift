import RecordKit

extension EncodingChoices {
    /// The setup keys that carry encoding choices, as the `file` and `rtmp` manifests declare
    /// them; an empty value means "the default".
    package static let setupKeys = ["videoCodec", "encoder", "preset", "crf", "bitrate", "keyframeInterval", "audioCodec", "audioBitrate"]

    /// The choices in an extension's setup values (`crf=20`, `bitrate=6000000`, …). Throws
    /// ``BroadcastError/Kind/invalidSetup`` for a number that does not parse.
    package init(setup: SetupInfo) throws(BroadcastError) {
        func text(_ key: String) -> String? { setup[key].flatMap { $0.isEmpty ? nil : $0 } }
        func number<T: LosslessStringConvertible>(_ key: String, _ type: T.Type) throws(BroadcastError) -> T? {
            guard let t = text(key) else { return nil }
            guard let value = T(t) else { throw BroadcastError(.invalidSetup, "\(key) must be a number, got '\(t)'") }
            return value
        }
        self.init(videoCodec: text("videoCodec"), encoder: text("encoder"), preset: text("preset"),
                  crf: try number("crf", Int.self), bitrate: try number("bitrate", Int.self),
                  keyframeInterval: try number("keyframeInterval", Double.self),
                  audioCodec: text("audioCodec"), audioBitrate: try number("audioBitrate", Int.self))
    }

    /// Resolves and checks these choices (each encoder opened once, ``EncoderCheck``) for a
    /// file in `container` or, with `streaming`, for an RTMP stream; a bad choice is
    /// ``BroadcastError/Kind/invalidSetup`` with the encoder's own reason.
    package func checked(container: String, streaming: Bool) throws(BroadcastError) -> ResolvedEncoding {
        do throws(MediaError) {
            let resolved = try resolve(container: container, streaming: streaming)
            if streaming {
                try EncoderCheck.check(video: resolved.streamVideo, audio: resolved.streamAudio)
            } else {
                try EncoderCheck.check(video: resolved.fileVideo, audio: resolved.fileAudio)
            }
            return resolved
        } catch {
            throw BroadcastError(.invalidSetup, error.message)
        }
    }
}
