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
    /// `frameRateMode` (`variable` or `constant`), `monitor` (a RandR monitor's name or index) and
    /// `appAudioFrom` (an application's name or pid). `hasRegionOrWindow` and `appAudioChosen`
    /// (`--no-app-audio` or `--app-sink` given) reject contradicting combinations.
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applySources(frameRateMode: String, monitor: String?, appAudioFrom: String?,
                                      hasRegionOrWindow: Bool, appAudioChosen: Bool) throws(RecorderError) {
        guard let mode = FrameRateMode(rawValue: frameRateMode) else {
            throw RecorderError(.badArgument, "--frame-rate-mode must be constant or variable, got '\(frameRateMode)'")
        }
        screen.frameRateMode = mode
        if let monitor {
            guard !hasRegionOrWindow else { throw RecorderError(.badArgument, "--monitor cannot be combined with --region or --window") }
            screen.target = .monitor(MonitorSelector.parse(monitor))
        }
        if let appAudioFrom {
            guard !appAudioChosen else {
                throw RecorderError(.badArgument, "--app-audio-from cannot be combined with --no-app-audio or --app-sink")
            }
            appAudio = .application(ApplicationSelector.parse(appAudioFrom))
        }
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
