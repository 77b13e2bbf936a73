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

    /// Applies every capture source's settings (their declared options, resolved; by source,
    /// then setup key): all of them reach the video source's factory (``ScreenCaptureConfiguration/settings``),
    /// the audio source's (`pulse`) choose the tracks, the camera's place a camera in a corner.
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applySourceSettings(_ settings: [String: [String: String]]) throws(RecorderError) {
        screen.settings = settings
        try applyScreen(settings: settings["screen"] ?? [:])
        try applyAudio(settings: settings["pulse"] ?? [:])
        try applyCamera(settings: settings["camera"] ?? [:])
    }

    /// Applies the picture's settings, as their declaration (`Screen/screen-source.json`) names
    /// them: `region` (`WxH+X+Y`), `window` (id or name) or `monitor` (a RandR monitor's name or
    /// index), one at most (absent: the whole screen); `noCursor`; `frameRateMode` (`variable`,
    /// the default, or `constant`); `source` (a registered video source; absent: chosen by the session).
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applyScreen(settings s: [String: String]) throws(RecorderError) {
        let areas = ["region", "window", "monitor"].filter { s[$0] != nil }
        guard areas.count <= 1 else {
            throw RecorderError(.badArgument, "--\(areas[0]) cannot be combined with " + areas.dropFirst().map { "--\($0)" }.joined(separator: " or "))
        }
        if let region = s["region"] {
            do throws(CaptureError) { screen.target = .region(try PixelRect.parse(region)) } catch { throw RecorderError(.badArgument, error.message) }
        }
        if let window = s["window"] { screen.target = .window(WindowSelector.parse(window)) }
        if let monitor = s["monitor"] { screen.target = .monitor(MonitorSelector.parse(monitor)) }
        if s["noCursor"] == "true" { screen.showsCursor = false }
        let mode = s["frameRateMode"] ?? "variable"
        guard let frameRateMode = FrameRateMode(rawValue: mode) else {
            throw RecorderError(.badArgument, "--frame-rate-mode must be constant or variable, got '\(mode)'")
        }
        screen.frameRateMode = frameRateMode
        if let source = s["source"] {
            let names = VideoSourceRegistry.names
            guard names.contains(source) else {
                throw RecorderError(.badArgument, "--source must be \(names.joined(separator: " or ")), got '\(source)'")
            }
            screen.source = source
        }
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
    /// `off` (`true`: the corner starts hidden) and `track` (`true`: the camera as its own video
    /// track instead of a corner).
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applyCamera(settings: [String: String]) throws(RecorderError) {
        let off = settings["off"] == "true"
        let track = settings["track"] == "true"
        guard let camera = settings["name"] else {
            if off { throw RecorderError(.badArgument, "--camera-off needs --camera") }
            if track { throw RecorderError(.badArgument, "--camera-track needs --camera") }
            return
        }
        do throws(CaptureError) {
            let placement = try CameraPlacement(position: settings["position"] ?? "bottom-right", size: settings["size"] ?? "25%")
            self.camera = CameraRequest(name: camera.isEmpty || camera == "*" ? nil : camera, placement: placement, offAtStart: off,
                                        track: track)
        } catch {
            throw RecorderError(.badArgument, error.message)
        }
    }
}
