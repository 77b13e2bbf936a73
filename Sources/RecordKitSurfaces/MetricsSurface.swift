import Foundation
import Prometheus
import RecordKitControl
import RecordKitMedia
import RecordKitService
import RecordKitWeb
import Synchronization

/// The opt-in Prometheus endpoint of `recordd` (`GET /metrics` on 127.0.0.1, docs/METRICS.md),
/// on the loopback web stack: the service's status, read through its one request API once a
/// second, as swift-prometheus gauges and counters. Counters follow the recording's cumulative
/// counts (a new recording starts them again from where the last one left them, so they never go
/// down within this process).
package final class MetricsSurface: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let control: LocalControlClient
    private let server: Mutex<WebServer?> = Mutex(nil)
    private let running = Atomic<Bool>(false)
    private let last = Mutex<[String: Int64]>([:])
    private let sampler: Mutex<Thread?> = Mutex(nil)

    package init(control: LocalControlClient) { self.control = control }

    /// Listens on 127.0.0.1:`port` and samples the status every second; returns the port.
    package func start(port: UInt16) throws -> UInt16 {
        let registry = self.registry
        let web = WebServer(configuration: WebServerConfiguration(port: port), routes: [
            .http("/metrics") { _ in
                WebResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: .bytes(registry.emitToBuffer()))
            },
        ])
        let bound = try web.start()
        server.withLock { $0 = web }
        observeEncodes()
        running.store(true, ordering: .releasing)
        sample()
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                Thread.sleep(forTimeInterval: 1)
                sample()
            }
        }
        thread.name = "recordkit.metrics"
        thread.start()
        return bound
    }

    /// Stops listening and sampling.
    package func stop() {
        EncodeTimeObserver.set(nil)
        running.store(false, ordering: .releasing)
        server.withLock { $0?.stop(); $0 = nil }
    }

    /// Every encode of this process into `recordkit_encode_seconds{kind, encoder}`: the
    /// encoders report on their own threads (`EncodeTimeObserver`), one histogram update each.
    private func observeEncodes() {
        let registry = self.registry
        let histograms = Mutex<[String: ValueHistogram]>([:])
        EncodeTimeObserver.set(EncodeTimeObserver.Observer { kind, encoder, seconds in
            let histogram = histograms.withLock { cache in
                if let known = cache[kind.rawValue + "|" + encoder] { return known }
                let made = registry.makeValueHistogram(
                    descriptor: MetricNameDescriptor(metricName: "recordkit_encode_seconds", unitName: "",
                                                     helpText: "time to encode one video frame or audio block"),
                    labels: [("kind", kind.rawValue), ("encoder", encoder)], buckets: Self.encodeBuckets)
                cache[kind.rawValue + "|" + encoder] = made
                return made
            }
            histogram.record(seconds)
        })
    }

    /// 0.5 ms to 1 s: an AAC block takes well under a millisecond, a 1080p x264 frame a few to
    /// tens of milliseconds, and a frame period at 30 fps is 33 ms.
    static let encodeBuckets: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.033, 0.05, 0.1, 0.2, 0.5, 1]

    /// One reading of the status into the registry.
    func sample() {
        let status = control.request(ControlRequest(cmd: .status, id: "metrics")).result?.status
        let recording = status?.recording
        let state = recording?.state ?? "idle"
        for s in ["idle", "starting", "recording", "paused", "finishing"] {
            gauge("recordkit_recording_state", "1 for the recording's current state", labels: [("state", s)]).set(to: s == state ? 1 : 0)
        }
        gauge("recordkit_available", "1 when a recording can start (the display answers)")
            .set(to: status?.availability?.available == true ? 1 : 0)
        sampleUploads()
        guard let r = recording else { return }
        let c = r.recorder.capture
        count("recordkit_frames_captured_total", "frames captured", c.framesCaptured, recording: r.id)
        count("recordkit_frames_dropped_total", "frames dropped by capture", c.framesDropped, recording: r.id)
        if let d = c.damage {
            count("recordkit_frames_encoded_total", "frames given to the video encoders", d.encodedFrames, recording: r.id)
            count("recordkit_frames_skipped_total", "unchanged slots filled with skip pictures", d.skippedFrames, recording: r.id)
        }
        gauge("recordkit_recorded_seconds", "seconds recorded, pauses cut").set(to: r.recorder.recordedSeconds)
        for (track, ms) in c.audioOffsetMs {
            gauge("recordkit_av_offset_milliseconds", "audio minus video, measured", labels: [("track", track)]).set(to: ms)
        }
        for h in r.recorder.handlers {
            count("recordkit_output_bytes_total", "bytes delivered to an output", Int64(h.statistics.bytesDelivered), recording: r.id, labels: [("output", h.name)])
            count("recordkit_output_dropped_frames_total", "video frames an output's queue dropped", Int64(h.statistics.droppedVideo), recording: r.id, labels: [("output", h.name)])
            if h.name.hasPrefix("rtmp") || h.name.hasPrefix("srt") {
                let st = h.serviceInfo["state"] ?? ""
                for s in ["connecting", "live", "reconnecting", "gave up"] {
                    gauge("recordkit_rtmp_state", "1 for the endpoint's state", labels: [("output", h.name), ("state", s)])
                        .set(to: st.hasPrefix(s) ? 1 : 0)
                }
                if let n = h.serviceInfo["reconnections"].flatMap({ Int64($0) }) {
                    count("recordkit_rtmp_reconnects_total", "connections made again after one was lost", n, recording: r.id,
                          labels: [("output", h.name)])
                }
            }
        }
    }

    /// The upload queue: bytes the servers confirmed, uploads that failed, uploads waiting or
    /// running. Read whether or not a recording runs (uploads outlive recordings).
    private func sampleUploads() {
        guard let uploads = control.request(ControlRequest(cmd: .uploads, id: "metrics")).result?.uploads else { return }
        for upload in uploads {
            // Per upload id, so a finished upload's bytes count once and a restart never counts twice.
            count("recordkit_upload_bytes_total", "bytes the upload servers confirmed", upload.bytesDone, recording: "upload-" + upload.id)
            count("recordkit_upload_failures_total", "uploads that failed", upload.state == "failed" ? 1 : 0, recording: "upload-" + upload.id)
        }
        let waiting = uploads.filter { ["queued", "running", "paused"].contains($0.state) }.count
        gauge("recordkit_uploads_pending", "uploads queued, running or paused").set(to: Double(waiting))
    }

    /// The gauge `name` with `labels` (made once, then found again by the registry).
    private func gauge(_ name: String, _ help: String, labels: [(String, String)] = []) -> Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// Advances counter `name` to the recording's cumulative `value`.
    private func count(_ name: String, _ help: String, _ value: Int64, recording: String, labels: [(String, String)] = []) {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined() + "|" + recording
        let delta: Int64 = last.withLock { l in
            let before = l[key] ?? 0
            l[key] = max(before, value)
            return max(0, value - before)
        }
        let counter = registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
        if delta > 0 { counter.increment(by: delta) }
    }
}
