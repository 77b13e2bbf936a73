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

    /// The keys of the table.
    static let keys = ["target", "endpoint", "region", "addressing", "credentials-profile", "name", "part-size", "delete-after-upload",
                       "recordings", "replays"]

    /// Reads and checks the table, over `base` (a profile's `[profiles.NAME.uploads]` over `[uploads]`).
    init(_ t: ConfigTable, over base: UploadSettings = UploadSettings()) throws(ConfigError) {
        self = base
        try t.read(known: Self.keys) { key throws(ConfigError) in
            switch key {
            case "target":
                let target = try t.string(key)
                guard target.hasPrefix("s3://") || target.hasPrefix("tus+http://") || target.hasPrefix("tus+https://") else {
                    throw t.mistake(key, mustBe: "s3://BUCKET/PREFIX or tus+https://… (a presigned URL is one per file: pass it to `recordctl upload --to -`)")
                }
                self.target = target
            case "endpoint":
                let e = try t.string(key)
                guard e.hasPrefix("http://") || e.hasPrefix("https://"), !e.contains("?"), !e.contains("@") else {
                    throw t.mistake(key, mustBe: "an http(s) URL without a query or user, like http://127.0.0.1:9000")
                }
                endpoint = e
            case "region": region = try t.string(key)
            case "addressing":
                let a = try t.string(key)
                guard a == "path" || a == "virtual" else { throw t.mistake(key, mustBe: "\"path\" or \"virtual\"") }
                addressing = a
            case "credentials-profile": credentialsProfile = try t.string(key)
            case "name": name = try t.string(key)
            case "part-size": partSizeMiB = try t.int(key, in: 5...5120, mustBe: "MiB, a whole number from 5 to 5120")
            case "delete-after-upload": deleteAfterUpload = try t.bool(key)
            case "recordings": recordings = try t.bool(key)
            default: replays = try t.bool(key)
            }
        }
        if (recordings || replays) && target == nil {
            throw ConfigError("\(t.path): [\(t.name)] recordings or replays needs target = \"s3://BUCKET/PREFIX\"")
        }
    }
}
