import RecordKit
import RecordKitCapture

extension RecordingConfiguration {
    /// A configuration from the command line's and the control protocol's spellings: `region`
    /// as `WxH+X+Y`, `window` as an id (`0x…`) or an exact name, sinks and sources by name,
    /// `pauseOnBackground` as `hidden`, `unfocused` or `never`. Throws
    /// ``RecorderError/Kind/badArgument`` with a message for a malformed value.
    package init(display: String?, fps: Int, region: String?, window: String?, showsCursor: Bool,
                appAudio: Bool, appSink: String?, micAudio: Bool, micSource: String?,
                audioServer: String?, requireAudio: Bool, pauseOnBackground: String?) throws(RecorderError) {
        guard (1...120).contains(fps) else { throw RecorderError(.badArgument, "fps must be between 1 and 120, got \(fps)") }
        if region != nil && window != nil { throw RecorderError(.badArgument, "a region and a window cannot be recorded together") }
        var target = CaptureTarget.screen
        if let region {
            do throws(CaptureError) { target = .region(try PixelRect.parse(region)) } catch { throw RecorderError(.badArgument, error.message) }
        }
        if let window { target = .window(WindowSelector.parse(window)) }
        var policy: PauseOnBackgroundPolicy?
        if let pauseOnBackground {
            guard let p = PauseOnBackgroundPolicy(rawValue: pauseOnBackground) else {
                throw RecorderError(.badArgument, "--pause-on-background must be hidden, unfocused or never, got '\(pauseOnBackground)'")
            }
            policy = p
        }
        self.init(screen: ScreenCaptureConfiguration(display: display, target: target, framesPerSecond: fps, showsCursor: showsCursor),
                  appAudio: appAudio ? (appSink.map { .sinkMonitor($0) } ?? .defaultSinkMonitor) : nil,
                  micAudio: micAudio ? (micSource.map { .source($0) } ?? .defaultSource) : nil,
                  audioServer: audioServer, requireAudio: requireAudio, pauseOnBackground: policy)
    }
}
