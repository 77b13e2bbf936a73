import TOMLKit

/// The config file's `[uploads]` table (docs/UPLOADS.md, "Config file"): a default target and
/// how to reach it, for `start`, `record` and `save-replay`. Flags win over it; it wins over
/// `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`. Holds no credential (those go in
/// `~/.aws/credentials` or RecordKit's private credentials file).
///
/// ```toml
/// [uploads]
/// target = "s3://team-recordings/desk-7"
/// endpoint = "http://127.0.0.1:9000"
/// recordings = true     # every start/record uploads its files to target
/// replays = true        # every replay clip is uploaded to target
/// ```
package struct UploadSettings: Sendable, Equatable {
    /// `s3://BUCKET/PREFIX` or `tus+https://…` (a presigned URL is one per file: not here).
    package var target: String?
    /// The S3 endpoint URL.
    package var endpoint: String?
    /// The S3 region.
    package var region: String?
    /// `path` or `virtual`.
    package var addressing: String?
    /// The profile of `~/.aws/credentials` the service uses.
    package var credentialsProfile: String?
    /// The object name template.
    package var name: String?
    /// S3 part size in MiB (5 to 5120).
    package var partSizeMiB: Int?
    /// Delete each local file once its object was checked.
    package var deleteAfterUpload = false
    /// Upload every recording (and its split parts) to ``target`` without `--upload`.
    package var recordings = false
    /// Upload every replay clip to ``target`` without `save-replay --upload`.
    package var replays = false

    /// No upload settings.
    package init() {}

    /// Reads and checks the table; `line` gives the line of a key, for messages.
    init(_ table: TOMLTable, path: String, line: (String) -> Int) throws(ConfigError) {
        func string(_ key: String) throws(ConfigError) -> String {
            guard let s = table[key]?.string, !s.isEmpty else { throw ConfigError("\(path), line \(line(key)): uploads.\(key) must be a non-empty string") }
            return s
        }
        func bool(_ key: String) throws(ConfigError) -> Bool {
            guard let b = table[key]?.bool else { throw ConfigError("\(path), line \(line(key)): uploads.\(key) must be true or false") }
            return b
        }
        for key in table.keys {
            switch key {
            case "target":
                let t = try string(key)
                guard t.hasPrefix("s3://") || t.hasPrefix("tus+http://") || t.hasPrefix("tus+https://") else {
                    throw ConfigError("\(path), line \(line(key)): uploads.target must be s3://BUCKET/PREFIX or tus+https://… "
                                      + "(a presigned URL is one per file: pass it to `recordctl upload --to -`)")
                }
                target = t
            case "endpoint":
                let e = try string(key)
                guard e.hasPrefix("http://") || e.hasPrefix("https://"), !e.contains("?"), !e.contains("@") else {
                    throw ConfigError("\(path), line \(line(key)): uploads.endpoint must be an http(s) URL without a query or user, like http://127.0.0.1:9000")
                }
                endpoint = e
            case "region": region = try string(key)
            case "addressing":
                let a = try string(key)
                guard a == "path" || a == "virtual" else { throw ConfigError("\(path), line \(line(key)): uploads.addressing must be \"path\" or \"virtual\"") }
                addressing = a
            case "credentials-profile": credentialsProfile = try string(key)
            case "name": name = try string(key)
            case "part-size":
                guard let n = table[key]?.int, (5...5120).contains(n) else {
                    throw ConfigError("\(path), line \(line(key)): uploads.part-size must be MiB, a whole number from 5 to 5120")
                }
                partSizeMiB = n
            case "delete-after-upload": deleteAfterUpload = try bool(key)
            case "recordings": recordings = try bool(key)
            case "replays": replays = try bool(key)
            default:
                throw ConfigError("\(path), line \(line(key)): unknown key \"\(key)\" in [uploads]; known: target, endpoint, region, addressing, "
                                  + "credentials-profile, name, part-size, delete-after-upload, recordings, replays")
            }
        }
        if (recordings || replays) && target == nil {
            throw ConfigError("\(path): [uploads] recordings or replays needs target = \"s3://BUCKET/PREFIX\"")
        }
    }
}
