import RecordKit

/// The "same as stream" rule: a handler that allows it (``HandlerInput/sharesVideoEncode``)
/// records the encoded video another handler asks for, so a file beside a stream costs one
/// encoder, as OBS's "use stream encoder" and FFmpeg's `tee` do.
enum VideoEncodeSharing {
    /// `inputs` with every sharing handler's video settings replaced by those of the first
    /// handler that asks for encoded video without sharing; unchanged when there is none.
    static func apply(to inputs: [HandlerInput]) -> [HandlerInput] {
        let leader = inputs.first { input in
            if case .encoded = input.video { return !input.sharesVideoEncode }
            return false
        }
        guard let leader else { return inputs }
        return inputs.map { input in
            guard input.sharesVideoEncode, case .encoded = input.video else { return input }
            var shared = input
            shared.video = leader.video
            return shared
        }
    }
}
