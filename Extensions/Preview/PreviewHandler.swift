import Foundation
import RecordKit
import RecordKitMedia
import Synchronization

/// The built-in preview, as ReplayKit's broadcast preview and `RPPreviewViewController`: a web
/// page on 127.0.0.1 that shows the recording live (picture, sound, status, controls) and,
/// after stop, the finished movie to watch and keep or discard.
///
/// Cost: no encode of its own. It takes the file's encoded video (sharing the recording's video
/// encode, ``HandlerInput/sharesVideoEncode``) and the app audio track the file already
/// encodes, and re-wraps the packets as fragmented MP4 in memory (``FragmentedMP4Writer``).
/// Every viewer has its own bounded queue (``LiveViewer``): ``processSampleBuffer(_:with:)``
/// never waits for the network.
///
/// Security: the server listens on 127.0.0.1 only and every request must carry a random
/// 256-bit token (``TokenGate``). The URL with the token is published as service info `url`
/// (so `recordctl status`, `start` and `preview` show it to the user who owns the recording)
/// and is never logged.
///
/// After stop the server stays up in the recording's process (the service) and serves the
/// review of the movie the file handler wrote, until the page keeps or discards it.
///
/// Threading: as every handler, called serially by the pipeline.
package final class PreviewHandler: BroadcastSampleHandler, @unchecked Sendable {
    // Sendable: everything below is touched only by the pipeline's serial calls; what the
    // server reads lives in `site` (thread-safe).
    /// The options the handler was created with.
    package let options: PreviewOptions
    private var writer: FragmentedMP4Writer?
    private var trackOf: [SampleBufferType: Int] = [:]
    private var site: PreviewSite?
    private var server: PreviewServer?
    private var context: BroadcastContext?

    /// Creates a preview handler.
    package init(options: PreviewOptions) { self.options = options }

    /// Encoded video shared with the file's encode, and the app audio track encoded as the file
    /// encodes it (one shared AAC encoder).
    package var input: HandlerInput {
        var input = HandlerInput(video: .encoded(.fileDefault), appAudio: .encoded(.standard))
        input.sharesVideoEncode = true
        return input
    }

    /// Opens the muxer and the server; publishes `url` and `state`.
    package func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        var streams: [EncodedFormat] = []
        for type in [SampleBufferType.video, .audioApp] {
            guard let format = context.encodedFormat(of: type), format.codec == .h264 || format.codec == .aac else { continue }
            trackOf[type] = streams.count
            streams.append(format)
        }
        guard trackOf[.video] != nil else {
            throw BroadcastError(.invalidSetup, "the preview needs H.264 video, and the recording has none (another codec was chosen?)")
        }
        let writer: FragmentedMP4Writer
        do throws(MediaError) { writer = try FragmentedMP4Writer(streams: streams) } catch {
            throw BroadcastError(.internalError, "the live preview could not start: \(error.message)")
        }
        // Keep with trim points trims losslessly (MovieTrimmer: a remux, re-encoding only up to
        // the first key frame after a cut between key frames).
        let review = ReviewActions(trim: { input, start, end, output in
            _ = try MovieTrimmer.trim(input: input, start: start, end: end, output: output)
        })
        let site = PreviewSite(mimeType: Self.mimeType(streams), control: context as? BroadcastControlling, reviewActions: review)
        site.feed.start(initSegment: writer.initSegment)
        let server = try PreviewServer(site: site, port: options.port)
        let port = try server.start()
        self.writer = writer
        self.site = site
        self.server = server
        self.context = context
        // No `state` key: a state change is an event, and events must not carry the token.
        context.publish(serviceInfo: ["url": "http://127.0.0.1:\(port)/?token=\(site.token.text)"])
    }

    /// Re-wraps the packet; after a video packet, hands the fragment to every viewer.
    package func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        guard let writer, let site, let track = trackOf[type] else { return }
        do throws(MediaError) {
            if let fragment = try writer.append(sampleBuffer, toStream: track, isVideo: type == .video) {
                site.feed.publish(fragment.bytes, isKeyFrame: fragment.isKeyFrame)
            }
        } catch {
            // The file goes on; only the preview ends.
            context?.finishBroadcast(with: BroadcastError(.internalError, "the live preview stopped: \(error.message)"))
        }
    }

    /// Ends the live picture; the page turns into the review of the recorded movie (or closes
    /// when the recording was discarded or wrote no movie).
    package func broadcastFinished() {
        writer?.close()
        writer = nil
        guard let site else { return }
        site.feed.end()
        let status = site.recordingStatus()
        let discarding = context?.isDiscarding ?? true
        let movie = discarding ? nil : Self.moviePath(in: status)
        site.beginReview(moviePath: movie, finalStatus: status)
        if movie == nil {
            site.close(outcome: discarding ? "discarded" : "no movie to review")
            server?.stop()
        } else {
            // The server outlives the broadcast: the review is served until kept or discarded.
            ReviewRegistry.shared.keep(server: server, site: site)
        }
        context = nil
    }

    /// `video/mp4; codecs="avc1.PPCCLL[,mp4a.40.2]"`: the H.264 profile, constraints and level
    /// from the AVC configuration record (bytes 1-3 of the extradata), AAC-LC when there is audio.
    static func mimeType(_ streams: [EncodedFormat]) -> String {
        var codecs: [String] = []
        for format in streams {
            if format.codec == .h264 {
                let record = format.extradata
                let hex = record.count >= 4 && record[0] == 1
                    ? record[1...3].map { String(format: "%02x", $0) }.joined() : "640028"
                codecs.append("avc1." + hex)
            } else if format.codec == .aac {
                codecs.append("mp4a.40.2")
            }
        }
        return "video/mp4; codecs=\"\(codecs.joined(separator: ","))\""
    }

    /// The movie the recording wrote: the first handler's published `path` that names an MP4
    /// or Matroska file.
    static func moviePath(in statusJSON: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(statusJSON)) as? [String: Any],
              let handlers = object["handlers"] as? [[String: Any]] else { return nil }
        for handler in handlers {
            if let info = handler["serviceInfo"] as? [String: String], let path = info["path"],
               path.hasSuffix(".mp4") || path.hasSuffix(".mkv") || path.hasSuffix(".mov") {
                return path
            }
        }
        return nil
    }
}
