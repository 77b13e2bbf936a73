import RecordKitExtensions
import RecordKitPipeline

extension StartArguments {
    /// The recording configuration these arguments describe; malformed values are `bad_argument`.
    public func recordingConfiguration() throws(ControlError) -> RecordingConfiguration {
        do throws(RecorderError) {
            return try RecordingConfiguration(
                display: display, fps: fps, region: region, window: window, showsCursor: !noCursor,
                appAudio: !noAppAudio, appSink: appSink, micAudio: !noMic, micSource: micSource,
                audioServer: audioServer, requireAudio: requireAudio, pauseOnBackground: pauseOnBackground)
        } catch {
            throw error.controlError
        }
    }

    /// The extensions these arguments ask for, in order: the `file` extension (unless
    /// ``noFile``) with `--output`, `--format` and `--overwrite` as its setup, one `rtmp`
    /// extension per endpoint, the `replay-buffer` extension for `--replay-buffer`, then every
    /// `--extension`. `--output`, `--rtmp` and `--extension`
    /// are spellings of the same thing: requests for extensions from the one catalog.
    public func extensionRequests() -> [ExtensionRequest] {
        var requests: [ExtensionRequest] = []
        if !noFile {
            requests.append(ExtensionRequest(name: "file", setup: ["path": output ?? "", "format": format ?? "",
                                                                   "overwrite": overwrite ? "true" : "false"]))
        }
        for url in rtmp { requests.append(ExtensionRequest(name: "rtmp", setup: ["url": url])) }
        if let replayRequest { requests.append(replayRequest) }
        return requests + extensions
    }
}

extension RecorderError {
    /// The protocol error for a recorder error.
    public var controlError: ControlError {
        switch kind {
        case .badArgument: return ControlError(.badArgument, message)
        case .unavailable: return ControlError(.unavailable, message)
        case .cannotCreateOutput: return ControlError(.cannotCreateOutput, message)
        case .invalidState: return ControlError(.invalidState, message)
        case .failed: return ControlError(.failed, message)
        }
    }
}
