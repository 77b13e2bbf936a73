import RecordKit
import RecordKitCapture

extension RecordingConfiguration {
    /// What the audio source is asked for: app audio and microphone, as configured.
    var audioRequest: AudioSourceRequest {
        var tracks: [(type: SampleBufferType, selector: AudioSourceSelector)] = []
        if let s = appAudio { tracks.append((.audioApp, s)) }
        if let s = micAudio { tracks.append((.audioMic, s)) }
        return AudioSourceRequest(tracks: tracks, server: audioServer, requireAudio: requireAudio)
    }

    /// Applies the capture source options as the command line and the service spell them:
    /// `frameRateMode` (`variable` or `constant`) and `monitor` (a RandR monitor's name or index).
    /// `hasRegionOrWindow` rejects a contradicting combination.
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applySources(frameRateMode: String, monitor: String?, hasRegionOrWindow: Bool) throws(RecorderError) {
        guard let mode = FrameRateMode(rawValue: frameRateMode) else {
            throw RecorderError(.badArgument, "--frame-rate-mode must be constant or variable, got '\(frameRateMode)'")
        }
        screen.frameRateMode = mode
        if let monitor {
            guard !hasRegionOrWindow else { throw RecorderError(.badArgument, "--monitor cannot be combined with --region or --window") }
            screen.target = .monitor(MonitorSelector.parse(monitor))
        }
    }

    /// Applies every capture source's settings (their declared options, resolved; by source,
    /// then setup key): all of them reach the video source's factory (``ScreenCaptureConfiguration/settings``),
    /// the audio source's (`pulse`) choose the tracks, the camera's place a camera in a corner.
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applySourceSettings(_ settings: [String: [String: String]]) throws(RecorderError) {
        screen.settings = settings
        try applyAudio(settings: settings["pulse"] ?? [:])
        try applyCamera(settings: settings["camera"] ?? [:])
    }

    /// Applies the audio source's settings, as its declaration (`Audio/pulse-source.json`) names
    /// them: `noMic`, `noAppAudio` (`true`: no such track), `appSink` (the sink whose monitor is
    /// the app audio), `micSource`, `appAudioFrom` (one application's name or pid), `micOff` (the
    /// microphone starts switched off), `requireAudio`. Absent keys keep the defaults: both
    /// tracks, the default sink's monitor and the default source.
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applyAudio(settings s: [String: String]) throws(RecorderError) {
        let on = { (key: String) in s[key] == "true" }
        if on("noMic") && on("noAppAudio") && on("requireAudio") {
            throw RecorderError(.badArgument, "--require-audio contradicts --no-mic --no-app-audio")
        }
        if on("noMic") && on("micOff") { throw RecorderError(.badArgument, "--mic-off needs a microphone track: drop --no-mic") }
        if s["appAudioFrom"] != nil && (on("noAppAudio") || s["appSink"] != nil) {
            throw RecorderError(.badArgument, "--app-audio-from cannot be combined with --no-app-audio or --app-sink")
        }
        if on("noAppAudio") { appAudio = nil } else if let sink = s["appSink"] { appAudio = .sinkMonitor(sink) }
        if let from = s["appAudioFrom"] { appAudio = .application(ApplicationSelector.parse(from)) }
        if on("noMic") { micAudio = nil } else if let source = s["micSource"] { micAudio = .source(source) }
        if s["requireAudio"] != nil { requireAudio = on("requireAudio") }
        if on("micOff") { mutedAtStart.insert(.audioMic) }  // the live mic switch, off from the start
    }

    /// Applies the camera's settings, as its declaration (`Camera/camera-source.json`) names
    /// them: `name` (a camera's name; `*` or empty for the first camera; absent: no camera),
    /// `position` and `size` (``CameraPlacement/init(position:size:)``; absent: bottom-right, 25%)
    /// and `off` (`true`: the corner starts hidden).
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applyCamera(settings: [String: String]) throws(RecorderError) {
        let off = settings["off"] == "true"
        guard let camera = settings["name"] else {
            if off { throw RecorderError(.badArgument, "--camera-off needs --camera") }
            return
        }
        do throws(CaptureError) {
            let placement = try CameraPlacement(position: settings["position"] ?? "bottom-right", size: settings["size"] ?? "25%")
            self.camera = CameraRequest(name: camera.isEmpty || camera == "*" ? nil : camera, placement: placement, offAtStart: off)
        } catch {
            throw RecorderError(.badArgument, error.message)
        }
    }
}
