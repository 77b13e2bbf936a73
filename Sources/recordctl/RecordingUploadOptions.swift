import ArgumentParser
import RecordKitConfig
import RecordKitControl

/// `--upload TARGET` / `--no-upload` and the upload flags, shared by `start` and `record`: the
/// recording uploads at stop and each split part as it closes (docs/UPLOADS.md). The config
/// file's `[uploads]` fills in what no flag sets (`recordings = true`: upload without
/// `--upload`; `replays = true`: replay clips too).
struct RecordingUploadOptions: ParsableArguments {
    @Option(name: .customLong("upload"),
            help: ArgumentHelp("Upload the recording when it stops, and each split part as it closes (s3://BUCKET/PREFIX, tus+https://…, "
                               + "or a presigned URL given as - or @FILE).", valueName: "TARGET"))
    var upload: String?

    @Flag(name: .customLong("no-upload"), help: "Upload nothing, whatever the config file's [uploads] says.")
    var noUpload = false

    @OptionGroup(title: "Upload") var flags: UploadFlags

    func validate() throws {
        if noUpload && upload != nil { throw ValidationError("--no-upload contradicts --upload") }
    }

    /// Sets `upload` and `uploadReplays` of `arguments` from these flags over `config`.
    func apply(to arguments: inout StartArguments, config: UploadSettings) throws {
        guard !noUpload else {
            arguments.upload = nil
            arguments.uploadReplays = nil
            return
        }
        let target = try upload.map(UploadFlags.target) ?? (config.recordings ? config.target : nil)
        arguments.upload = target.map { flags.options(target: $0, config: config) }
        if config.replays, let t = config.target { arguments.uploadReplays = flags.options(target: t, config: config) }
    }
}
