import Foundation
import XCTest

/// Prometheus metrics (docs/METRICS.md): `[metrics]` enables `/metrics` on 127.0.0.1; a real Prometheus
/// server (Debian's `prometheus`, started here on 127.0.0.1:19903) scrapes it every second during
/// a recording and answers PromQL queries through its HTTP API: state, frames, bytes per output,
/// the encode-time histogram (a 99th percentile through `histogram_quantile`), the upload queue.
final class MetricsTests: EndToEndTestCase {
    func testPrometheusScrapesARecording() throws {
        let metricsPort = 19902, prometheusPort = 19903
        let config = path("config")
        try FileManager.default.createDirectory(atPath: config + "/recordkit", withIntermediateDirectories: true)
        try "[metrics]\nenabled = true\nport = \(metricsPort)\n".write(toFile: config + "/recordkit/config.toml", atomically: true, encoding: .utf8)
        let service = try ServiceHarness(rig: rig, workDir: workDir, extraEnvironment: ["XDG_CONFIG_HOME": config])
        defer { service.shutdown() }
        try service.ok(["start", "--region", "320x240+0+0", "--output", path("metered.mp4")])

        let promConfig = path("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: recordkit
            static_configs:
              - targets: ['127.0.0.1:\(metricsPort)']
        """.write(toFile: promConfig, atomically: true, encoding: .utf8)
        let prometheus = try RunningProcess("prometheus", ["--config.file=\(promConfig)", "--storage.tsdb.path=\(path("tsdb"))",
                                                            "--web.listen-address=127.0.0.1:\(prometheusPort)"], environment: rig.environment)
        defer { prometheus.terminate(grace: 3); _ = prometheus.wait(timeout: 10, grace: 2) }

        var frames = 0.0
        var up = 0.0
        let deadline = Date().addingTimeInterval(40)
        while Date() < deadline, frames <= 0 || up != 1 {
            Thread.sleep(forTimeInterval: 1)
            up = query("up{job=\"recordkit\"}", port: prometheusPort) ?? 0
            frames = query("recordkit_frames_captured_total", port: prometheusPort) ?? 0
        }
        XCTAssertEqual(up, 1, "Prometheus scraped the endpoint")
        XCTAssertGreaterThan(frames, 0, "frames captured, through PromQL")
        XCTAssertEqual(query("recordkit_recording_state{state=\"recording\"}", port: prometheusPort), 1)
        XCTAssertGreaterThan(query("sum(recordkit_output_bytes_total{output=\"file\"})", port: prometheusPort) ?? 0, 0, "bytes per output")
        // Every encode lands in the histogram, video and audio apart, and PromQL makes quantiles of it.
        var encodes = 0.0
        let histogramDeadline = Date().addingTimeInterval(20)
        while Date() < histogramDeadline, encodes <= 0 {
            encodes = query("sum(recordkit_encode_seconds_count{kind=\"video\"})", port: prometheusPort) ?? 0
            if encodes <= 0 { Thread.sleep(forTimeInterval: 1) }
        }
        XCTAssertGreaterThan(encodes, 0, "video encodes observed")
        XCTAssertGreaterThan(query("sum(recordkit_encode_seconds_count{kind=\"audio\"})", port: prometheusPort) ?? 0, 0, "audio encodes observed")
        let p99 = query("histogram_quantile(0.99, sum by (le) (recordkit_encode_seconds_bucket{kind=\"video\"}))", port: prometheusPort) ?? -1
        XCTAssertTrue(p99 > 0 && p99 <= 1, "a 99th percentile of the video encode time within the buckets: \(p99) s")
        XCTAssertEqual(query("recordkit_uploads_pending", port: prometheusPort), 0, "the upload queue is reported, empty here")
        try service.ok(["stop"])
    }

    /// The first sample of a PromQL instant query, or nil.
    private func query(_ promql: String, port: Int) -> Double? {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/api/v1/query")!
        components.queryItems = [URLQueryItem(name: "query", value: promql)]
        guard let r = try? ProcessRunner.run("curl", ["-fsS", "--max-time", "5", components.url!.absoluteString], timeout: 10), r.exitCode == 0,
              let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let result = (json["data"] as? [String: Any])?["result"] as? [[String: Any]], let value = result.first?["value"] as? [Any],
              let text = value.last as? String else { return nil }
        return Double(text)
    }
}
