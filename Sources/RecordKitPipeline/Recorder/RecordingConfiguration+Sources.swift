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

    /// Applies the camera options as the command line and the service spell them: `camera` (a
    /// name, empty for the first camera, nil for none), `position` and `size`
    /// (``CameraPlacement/init(position:size:)``), `off` (the corner starts hidden) and `track`
    /// (the camera as its own video track instead of a corner).
    /// - Throws: ``RecorderError`` `.badArgument` naming the option.
    package mutating func applyCamera(_ camera: String?, position: String, size: String, off: Bool, track: Bool = false) throws(RecorderError) {
        guard let camera else {
            if off { throw RecorderError(.badArgument, "--camera-off needs --camera") }
            if track { throw RecorderError(.badArgument, "--camera-track needs --camera") }
            return
        }
        do throws(CaptureError) {
            self.camera = CameraRequest(name: camera.isEmpty ? nil : camera, placement: try CameraPlacement(position: position, size: size),
                                        offAtStart: off, track: track)
        } catch {
            throw RecorderError(.badArgument, error.message)
        }
    }
}
