import RecordKit

/// Checks, before anything records, that encoder settings open: the encoder exists in this
/// FFmpeg, it takes the pictures RecordKit gives it (``EncoderInputFormat``: not `h264_vaapi` or
/// `h264_qsv`), its preset and quality are valid, and a hardware encoder has its device.
///
/// Opens each encoder once on a small picture (or silence) and closes it: about 10-200 ms
/// (SVT-AV1 is the slowest). Threading: any thread.
package enum EncoderCheck {
    /// Throws the encoder's own complaint, phrased for the user, when `video` or `audio` cannot open.
    package static func check(video: VideoEncoderSettings, audio: AudioEncoderSettings?) throws(MediaError) {
        // The check may run before any recorder configured FFmpeg's log (in `recordctl` before it
        // hands the recording over): its encoders' info lines ("[aac @ …] Qavg: nan") are not
        // for the user either.
        FFmpegLog.configureFromEnvironment()
        if let refusal = EncoderInputFormat.refusal(for: video.resolvedEncoderName) {
            throw MediaError("cannot use " + refusal)
        }
        do throws(MediaError) {
            let encoder = try VideoEncoder(settings: video, inputWidth: 320, inputHeight: 240, frameRate: 30, id: "check")
            // One frame, then flushed before it is freed: SVT-AV1's deinit waits forever for an
            // end of stream, and its end of stream for a first frame.
            let black = UnsafeMutableRawPointer.allocate(byteCount: 320 * 240 * 4, alignment: 64)
            defer { black.deallocate() }
            black.initializeMemory(as: UInt8.self, repeating: 0, count: 320 * 240 * 4)
            try encoder.encode(bgr0: black, bytesPerRow: 320 * 4, width: 320, height: 240, pts: 0) { _ in }
            try encoder.finish { _ in }
        } catch {
            throw MediaError("cannot use \(video.resolvedEncoderName): " + stripped(error.message, "video encoder check: "))
        }
        if let audio {
            do throws(MediaError) {
                _ = try AudioEncoder(settings: audio, type: .audioApp, id: "check")
            } catch {
                throw MediaError("cannot use \(audio.codec.rawValue) audio: " + stripped(error.message, "audio encoder check: "))
            }
        }
    }

    private static func stripped(_ message: String, _ prefix: String) -> String {
        message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }
}
