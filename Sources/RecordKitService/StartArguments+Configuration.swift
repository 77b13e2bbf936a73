import RecordKitExtensions
import RecordKitPipeline

extension StartArguments {
    /// The recording configuration these arguments describe; malformed values are `bad_argument`.
    package func recordingConfiguration() throws(ControlError) -> RecordingConfiguration {
        var configuration: RecordingConfiguration
        do throws(RecorderError) {
            configuration = try RecordingConfiguration(
                display: display, fps: fps, region: region, window: window, showsCursor: !noCursor,
                appAudio: !noAppAudio, appSink: appSink, micAudio: !noMic, micSource: micSource,
                audioServer: audioServer, requireAudio: requireAudio, pauseOnBackground: pauseOnBackground)
        } catch {
            throw error.controlError
        }
        try applySources(to: &configuration)  // frame-rate mode, monitor, one application's audio
        try applyCamera(to: &configuration)  // the camera in a corner
        configuration.screen.source = source
        if micOff { configuration.mutedAtStart.insert(.audioMic) }  // the live mic switch, off from the start
        return configuration
    }

    /// The extensions these arguments ask for, in order: the `file` extension (unless
    /// ``noFile``) with `--output`, `--format`, `--overwrite`, `--faststart` and `--split-every`/`--split-size` as its setup, one `rtmp`
    /// extension per endpoint (with `--rtmp-ca-file` as its `caFile`), the `replay-buffer` extension for `--replay-buffer`, then every
    /// `--extension`. The encoding choices (``encoding``) go to the file and to each endpoint,
    /// which resolve them for what they write. `--output`, `--rtmp` and `--extension`
    /// are spellings of the same thing: requests for extensions from the one catalog.
    package func extensionRequests() -> [ExtensionRequest] {
        var requests: [ExtensionRequest] = []
        if !noFile {
            var file = ["path": output ?? "", "format": format ?? "", "overwrite": overwrite ? "true" : "false"]
            if let splitEvery { file["splitEvery"] = String(splitEvery) }  // split files
            if let splitSize { file["splitSize"] = String(splitSize) }
            if faststart { file["faststart"] = "true" }  // index first (a remux at stop, for the web), on request
            requests.append(ExtensionRequest(name: "file", setup: file.merging(encoding) { own, _ in own }))
        }
        for url in rtmp {
            var setup = ["url": url]
            if let rtmpCAFile { setup["caFile"] = rtmpCAFile }  // RTMPS: the server's certificate is verified against this CA file
            requests.append(ExtensionRequest(name: "rtmp", setup: setup.merging(encoding) { own, _ in own }))
        }
        for url in srt { requests.append(ExtensionRequest(name: "srt", setup: ["url": url].merging(encoding) { own, _ in own })) }  // SRT
        if let replayRequest { requests.append(replayRequest) }
        return requests + extensions
    }
}

extension RecorderError {
    /// The protocol error for a recorder error.
    package var controlError: ControlError {
        switch kind {
        case .badArgument: return ControlError(.badArgument, message)
        case .unavailable: return ControlError(.unavailable, message)
        case .cannotCreateOutput: return ControlError(.cannotCreateOutput, message)
        case .invalidState: return ControlError(.invalidState, message)
        case .failed: return ControlError(.failed, message)
        }
    }
}
