/// What `recordctl start` asks the service to record (the same options as `recordctl record`).
package struct StartArguments: Codable, Sendable, Equatable {
    /// The client's X display (`DISPLAY`): the service records the caller's display.
    package var display: String?
    /// The client's PulseAudio server (`PULSE_SERVER`), if set.
    package var audioServer: String?
    /// Frames per second.
    package var fps: Int = 30
    /// "hidden", "unfocused" or "never": when to pause by itself.
    package var pauseOnBackground: String = "hidden"
    /// The options of the outputs and of the capture sources, as the user typed them (`--output
    /// x.mp4`, `--rtmp URL`, `--replay-buffer 60`, `--preview`, `--camera`, …): the service resolves
    /// them against the options the extensions' manifests and the sources' declarations declare
    /// (docs/ARCHITECTURE.md, "Options"), so neither it nor the command line names an output's or
    /// a source's option. May hold secrets (stream keys in URLs).
    package var outputOptions: [String] = []
    /// Output options from the config file and its profile, with where each was written: an
    /// option given in ``outputOptions`` replaces them.
    package var configuredOutputOptions: [ConfiguredOption] = []
    /// The outputs' keys the config file sets elsewhere (the profiles not in use): checked like
    /// ``configuredOutputOptions`` so that a mistake anywhere in the file stops the start, used for nothing.
    package var configuredOptionsToCheck: [ConfiguredOption] = []
    /// The client's working directory, absolute: relative paths in ``outputOptions`` are relative to it.
    package var workingDirectory: String?
    /// The client's `RECORDKIT_*` environment variables (a stream key an option declares it may
    /// read from there); secret, never logged.
    package var environment: [String: String] = [:]
    /// Extensions to feed (`--extension NAME` with its `--setup key=value` pairs), checked
    /// against their manifests before the recording starts.
    package var extensions: [ExtensionRequest] = []
    /// Directories to look for extensions in besides the user's (`--extensions-dir`), absolute.
    package var extensionsDirs: [String] = []
    /// Codec and quality choices (`--video-codec`, `--crf`, …, after profiles and the config
    /// file), as setup values of the `file` and `rtmp` extensions (`videoCodec`, `crf`,
    /// `bitrate` in bit/s, …), which resolve and check them.
    package var encoding: [String: String] = [:]
    /// Upload the recording when it stops, and each split part as it closes (docs/UPLOADS.md).
    package var upload: UploadOptions?
    /// Where the recording's replay clips go (config `[uploads] replays = true`), unless a
    /// `save-replay --upload` names another target; nil: clips stay local.
    package var uploadReplays: UploadOptions?
    /// Shell commands run after each file of the recording is final (`--on-saved`, config
    /// `[hooks] on-saved`): the recording, each split part, each replay clip (docs/recordctl/hooks.md).
    package var onSaved: [String] = []
    /// Seconds a hook may run before it is ended (nil: ``HookDefaults/timeoutSeconds``).
    package var hookTimeout: Double?

    /// Default arguments: the whole screen, both audio tracks, MP4. What the capture sources record
    /// (the area, the audio tracks, the camera) travels as their options in ``outputOptions`` and
    /// ``configuredOutputOptions``, resolved against their declarations.
    package init() {}

    /// Decodes arguments; every key is optional and takes its default when absent.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = StartArguments()
        display = try c.decodeIfPresent(String.self, forKey: .display)
        audioServer = try c.decodeIfPresent(String.self, forKey: .audioServer)
        fps = try c.decodeIfPresent(Int.self, forKey: .fps) ?? d.fps
        pauseOnBackground = try c.decodeIfPresent(String.self, forKey: .pauseOnBackground) ?? d.pauseOnBackground
        outputOptions = try c.decodeIfPresent([String].self, forKey: .outputOptions) ?? d.outputOptions
        configuredOutputOptions = try c.decodeIfPresent([ConfiguredOption].self, forKey: .configuredOutputOptions) ?? d.configuredOutputOptions
        configuredOptionsToCheck = try c.decodeIfPresent([ConfiguredOption].self, forKey: .configuredOptionsToCheck) ?? d.configuredOptionsToCheck
        workingDirectory = try c.decodeIfPresent(String.self, forKey: .workingDirectory)
        environment = try c.decodeIfPresent([String: String].self, forKey: .environment) ?? d.environment
        extensions = try c.decodeIfPresent([ExtensionRequest].self, forKey: .extensions) ?? d.extensions
        extensionsDirs = try c.decodeIfPresent([String].self, forKey: .extensionsDirs) ?? d.extensionsDirs
        encoding = try c.decodeIfPresent([String: String].self, forKey: .encoding) ?? d.encoding
        upload = try c.decodeIfPresent(UploadOptions.self, forKey: .upload)
        uploadReplays = try c.decodeIfPresent(UploadOptions.self, forKey: .uploadReplays)
        onSaved = try c.decodeIfPresent([String].self, forKey: .onSaved) ?? d.onSaved
        hookTimeout = try c.decodeIfPresent(Double.self, forKey: .hookTimeout)
        // An older client's capture fields, as the options they are now (a type mismatch is malformed, as before).
        outputOptions = try StartArgumentsLegacyField.words(in: decoder) + outputOptions
    }
}
