import RecordKit
import RecordKitMedia
import RecordKitSupport
import Synchronization

/// One shared AAC (or Opus) encoder for one distinct PCM input and one distinct
/// ``AudioEncoderSettings``, on a thread of its own (``SerialThread``). Audio is never dropped here.
///
/// Its packets go to every route it feeds: its own, and any route whose PCM is the very same
/// (with exactly one audio track recording, the "mixed" track is that track, relabelled), each
/// packet relabelled with that route's type. Routes join while it runs (an output attached
/// later) and leave (an output detached); the stage is finished once it feeds none.
final class AudioEncodeStage: @unchecked Sendable {
    /// The route whose PCM feeds the encoder (its sink in the ``AudioGraph`` is registered under it).
    let route: SampleRoute
    private let encoder: AudioEncoder
    private let queue: SerialThread
    private var failed = false  // on `queue` only
    private let feeds: Mutex<[SampleRoute]>
    private let onPacket: @Sendable (SampleBuffer, SampleRoute) -> Void
    private let onError: @Sendable (MediaError, SampleRoute) -> Void

    /// An encoder of the `type` track's PCM with `settings`; it feeds its own route until told
    /// otherwise. `onPacket` gets each packet once per route fed (already relabelled for it),
    /// `onError` a failure once per route fed; both on the stage's queue.
    init(type: SampleBufferType, settings: AudioEncoderSettings, id: String,
         onPacket: @escaping @Sendable (SampleBuffer, SampleRoute) -> Void,
         onError: @escaping @Sendable (MediaError, SampleRoute) -> Void) throws(MediaError) {
        let route = SampleRoute.audio(type, .encoded(settings))
        self.route = route
        self.encoder = try AudioEncoder(settings: settings, type: type, id: id)
        self.queue = SerialThread(name: "rk-aenc-\(Self.trackName(type))-\(id.split(separator: "-").last ?? "")")
        self.feeds = Mutex([route])
        self.onPacket = onPacket
        self.onError = onError
    }

    /// The settings of the encode.
    var settings: AudioEncoderSettings? {
        if case .audio(_, .encoded(let settings)) = route { return settings }
        return nil
    }

    /// The routes its packets go to now.
    var fedRoutes: [SampleRoute] { feeds.withLock { $0 } }

    /// Feeds `route` too (same PCM, same settings, another type): from the next packet on.
    func feed(_ route: SampleRoute) {
        feeds.withLock { if !$0.contains(route) { $0.append(route) } }
    }

    /// Stops feeding `routes`; true when the stage feeds nothing any more (then finish it).
    func stopFeeding(_ routes: Set<SampleRoute>) -> Bool {
        feeds.withLock { f in
            f.removeAll { routes.contains($0) }
            return f.isEmpty
        }
    }

    /// Queues one PCM block of the track.
    func submit(_ block: SampleBuffer) {
        queue.async { [self] in
            guard !failed else { return }
            do throws(MediaError) { try encoder.encode(block, emit: emit) } catch {
                failed = true
                for route in fedRoutes { onError(error, route) }
            }
        }
    }

    /// The encoded stream's description (known from creation on).
    var format: EncodedFormat { encoder.format }

    /// Drains the encoder; returns when done. The stage's thread ends.
    func finish() {
        queue.sync {
            guard !failed else { return }
            do throws(MediaError) { try encoder.finish(emit: emit) } catch {
                for route in fedRoutes { onError(error, route) }
            }
        }
        queue.close()
    }

    /// The track in a thread name: `app`, `mic`, `mix`.
    private static func trackName(_ type: SampleBufferType) -> String {
        switch type {
        case .audioApp: "app"
        case .audioMic: "mic"
        case .audioMixed: "mix"
        default: type.rawValue
        }
    }

    private func emit(_ packet: SampleBuffer) {
        for route in fedRoutes { onPacket(route.type == packet.type ? packet : packet.replacing(type: route.type), route) }
    }
}
