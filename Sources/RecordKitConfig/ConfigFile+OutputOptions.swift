extension ConfigFile {
    /// The output options this file sets, as command-line words the service resolves against the
    /// extensions' declarations (a `recordctl record` option replaces them): `[rtmp] ca-file`
    /// as `--rtmp-ca-file`.
    package func outputOptionDefaults() -> [String] {
        var words: [String] = []
        if let caFile = rtmp.caFile { words += ["--rtmp-ca-file", caFile] }
        return words
    }
}
