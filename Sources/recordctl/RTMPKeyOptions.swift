import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `--rtmp-key-file`: the stream key kept off the command line (docs/RTMP.md, "Keeping the key
/// private"). Shared by `record` and `start`.
struct RTMPKeyOptions: ParsableArguments {
    @Option(name: .customLong("rtmp-key-file"),
            help: ArgumentHelp("Read the stream key from this file (first line) and append it to each --rtmp URL given without one "
                               + "(rtmp://host/app). Without it, $RECORDKIT_RTMP_KEY is used the same way.", valueName: "FILE"))
    var keyFile: String?

    /// `urls` with the key from `--rtmp-key-file` or `$RECORDKIT_RTMP_KEY` applied (unchanged
    /// when neither is given); prints a warning for a key file others can read.
    func resolve(_ urls: [String], warn: Bool = true) throws -> [String] {
        do throws(ControlError) {
            guard let loaded = try RTMPStreamKey.load(file: keyFile) else { return urls }
            if warn, let warning = loaded.warning { Console.error(warning) }
            if urls.isEmpty && keyFile == nil { return urls }  // the environment's key, for no --rtmp: nothing to do
            return try RTMPStreamKey.apply(loaded.key, to: urls)
        } catch {
            throw ValidationError(error.message)
        }
    }
}
