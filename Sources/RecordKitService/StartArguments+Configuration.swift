import RecordKitExtensions
import RecordKitPipeline

extension StartArguments {
    /// The recording configuration these arguments describe, with the capture sources' settings
    /// their options resolved to (``extensionRequests(catalog:)``); malformed values are `bad_argument`.
    package func recordingConfiguration(sourceSettings: [String: [String: String]] = [:]) throws(ControlError) -> RecordingConfiguration {
        var configuration: RecordingConfiguration
        do throws(RecorderError) {
            configuration = try RecordingConfiguration(
                display: display, fps: fps, region: nil, window: nil, showsCursor: true,  // the sources' settings choose (below)
                appAudio: true, appSink: nil, micAudio: true, micSource: nil,
                audioServer: audioServer, requireAudio: false, pauseOnBackground: pauseOnBackground)
        } catch {
            throw error.controlError
        }
        try applySourceSettings(sourceSettings, to: &configuration)  // the sources' declared options: area, audio tracks, camera, …
        return configuration
    }

    /// The extensions these arguments ask for, in order: those ``outputOptions`` request,
    /// resolved against the options `catalog`'s manifests declare (``OptionResolver``: the file
    /// unless `--no-file`, one `rtmp` per `--rtmp`, …, each with ``encoding`` where its manifest
    /// takes those keys), then every `--extension`; and the capture sources' settings, from the
    /// options their declarations declare (`--camera`, …). Throws `bad_argument` for an unknown
    /// option or a bad value; `warnings` (a key file others can read) are for the user.
    package func extensionRequests(catalog: ExtensionCatalog) throws(ControlError) -> OptionResolver.Resolution {
        let resolver = Self.resolver(catalog: catalog)
        if let problem = Self.configuredOptionProblems(configuredOptionsToCheck, resolver: resolver).first {
            throw ControlError(.badArgument, problem)
        }
        var resolution = try resolver.resolve(outputOptions, configured: configuredOutputOptions, encoding: encoding, workingDirectory: workingDirectory,
                                                                       environment: environment)
        resolution.requests += extensions
        return resolution
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

extension StartArguments {
    /// What is wrong with output options set in a config file, checked against `resolver`'s
    /// declarations: an unknown key, a value of the wrong type or out of range; one message per
    /// key, each with its line.
    static func configuredOptionProblems(_ options: [ConfiguredOption], resolver: OptionResolver) -> [String] {
        var problems: [String] = []
        for option in options {
            do throws(ControlError) { _ = try resolver.resolve([], configured: [option]) } catch { problems.append(error.message) }
        }
        return problems
    }
}
