import Dispatch
import RecordKit
import RecordKitMedia

/// One shared AAC encoder for one audio track and one distinct ``AudioEncoderSettings``, on a
/// serial queue of its own. Audio is never dropped here.
final class AudioEncodeStage: @unchecked Sendable {
    let route: SampleRoute
    private let encoder: AudioEncoder
    private let queue: DispatchQueue
    private var failed = false  // on `queue` only
    private let onPacket: @Sendable (SampleBuffer) -> Void
    private let onError: @Sendable (MediaError) -> Void

    init(type: SampleBufferType, settings: AudioEncoderSettings, id: String,
         onPacket: @escaping @Sendable (SampleBuffer) -> Void, onError: @escaping @Sendable (MediaError) -> Void) throws(MediaError) {
        self.route = .audio(type, .encoded(settings))
        self.encoder = try AudioEncoder(settings: settings, type: type, id: id)
        self.queue = DispatchQueue(label: "recordkit.encode.\(id)", qos: .userInteractive)
        self.onPacket = onPacket
        self.onError = onError
    }

    /// Queues one PCM block of the track.
    func submit(_ block: SampleBuffer) {
        queue.async { [self] in
            guard !failed else { return }
            do throws(MediaError) { try encoder.encode(block, emit: onPacket) } catch {
                failed = true
                onError(error)
            }
        }
    }

    /// The encoded stream's description (known from creation on).
    var format: EncodedFormat { encoder.format }

    /// Drains the encoder; returns when done.
    func finish() {
        queue.sync {
            guard !failed else { return }
            do throws(MediaError) { try encoder.finish(emit: onPacket) } catch { onError(error) }
        }
    }
}
