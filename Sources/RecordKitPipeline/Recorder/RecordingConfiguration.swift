import RecordKit
import RecordKitCapture

/// What to record.
package struct RecordingConfiguration: Sendable {
    /// Screen, region or window, frame rate and cursor.
    package var screen: ScreenCaptureConfiguration
    /// Application audio source, or nil for none.
    package var appAudio: AudioSourceSelector?
    /// Microphone source, or nil for none.
    package var micAudio: AudioSourceSelector?
    /// PulseAudio server, or nil for libpulse's default (`$PULSE_SERVER`, the user's socket).
    package var audioServer: String?
    /// Whether a missing audio server or source is an error (otherwise: video only, with a warning).
    package var requireAudio: Bool
    /// When to pause by itself (the recorded window hidden or unfocused, the screen locked), or
    /// nil never to watch.
    package var pauseOnBackground: PauseOnBackgroundPolicy?
    /// Audio tracks (`.audioMic`, `.audioApp`) that start switched off: they record silence
    /// until ``Recorder/setAudioEnabled(_:track:)`` switches them on.
    package var mutedAtStart: Set<SampleBufferType> = []
    /// The camera composited into the screen picture (`--camera`), or nil for none.
    package var camera: CameraRequest?

    /// Creates a configuration; by default the whole screen at 30 fps with the cursor, the
    /// default sink's monitor as app audio and the default source as microphone.
    package init(screen: ScreenCaptureConfiguration = ScreenCaptureConfiguration(),
                appAudio: AudioSourceSelector? = .defaultSinkMonitor, micAudio: AudioSourceSelector? = .defaultSource,
                audioServer: String? = nil, requireAudio: Bool = false, pauseOnBackground: PauseOnBackgroundPolicy? = nil) {
        self.screen = screen
        self.appAudio = appAudio
        self.micAudio = micAudio
        self.audioServer = audioServer
        self.requireAudio = requireAudio
        self.pauseOnBackground = pauseOnBackground
    }
}

/// A camera in the corner of the recording (picture-in-picture).
package struct CameraRequest: Sendable, Equatable {
    /// The camera's name (``CameraInfo/name``), or nil for the first camera.
    package var name: String?
    /// Corner and size.
    package var placement: CameraPlacement
    /// Whether the corner starts switched off (`--camera-off`): hidden until switched on.
    package var offAtStart: Bool
    /// Whether the camera is recorded as its own video track (`--camera-track`) instead of in
    /// a corner: ``placement`` is then unused and the screen picture has no corner.
    package var track: Bool

    /// Creates a request.
    package init(name: String?, placement: CameraPlacement = CameraPlacement(), offAtStart: Bool = false, track: Bool = false) {
        self.name = name
        self.placement = placement
        self.offAtStart = offAtStart
        self.track = track
    }
}

/// A handler added to a recording, under a name that status output uses.
package struct HandlerRegistration: @unchecked Sendable {
    /// The name ("file", "rtmp-1", an extension's name).
    package var name: String
    /// The handler. The recorder calls it serially on a queue of its own.
    package var handler: any BroadcastSampleHandler
    /// Its setup values.
    package var setupInfo: SetupInfo

    /// How many video samples may wait for this handler before further video is dropped for it.
    package var maxQueuedVideo: Int
    /// The handler's ``BroadcastContext/workingDirectory`` (it must exist), or nil for none.
    package var workingDirectory: String?

    /// Creates a registration.
    package init(name: String, handler: any BroadcastSampleHandler, setupInfo: SetupInfo = SetupInfo(), maxQueuedVideo: Int = 60,
                workingDirectory: String? = nil) {
        self.name = name
        self.handler = handler
        self.setupInfo = setupInfo
        self.maxQueuedVideo = maxQueuedVideo
        self.workingDirectory = workingDirectory
    }
}
