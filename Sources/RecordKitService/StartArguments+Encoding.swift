import RecordKitMedia

extension StartArguments {
    /// The encoders these arguments ask for, for a file in `container` (`mp4`/`mkv`), checked by
    /// opening each one (``EncoderCheck``) before anything records. A bad choice is `bad_argument`
    /// with the encoder's own reason (a hardware encoder says it needs its device).
    public func resolvedEncoding(container: String) throws(ControlError) -> ResolvedEncoding {
        try Self.resolve(encoding, container: container, streaming: !rtmp.isEmpty)
    }

    /// ``resolvedEncoding(container:)`` for any choices; `recordctl record` uses it directly.
    public static func resolve(_ choices: EncodingChoices, container: String, streaming: Bool) throws(ControlError) -> ResolvedEncoding {
        do throws(MediaError) {
            let resolved = try choices.resolve(container: container, streaming: streaming)
            try EncoderCheck.check(video: resolved.fileVideo, audio: resolved.fileAudio)
            if streaming && !resolved.fileSharesStreamEncode {
                try EncoderCheck.check(video: resolved.streamVideo, audio: resolved.streamAudio)
            }
            return resolved
        } catch {
            throw ControlError("bad_argument", error.message)
        }
    }
}
