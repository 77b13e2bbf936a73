/// Where and how to upload (the `--upload`/`--to` target and its options), as a client sends
/// it. Never carries a credential: the service reads those from its own environment and files
/// (docs/UPLOADS.md). A presigned URL in `target` is a secret: it is stored by the service and
/// shown redacted only.
package struct UploadOptions: Codable, Sendable, Equatable {
    /// `s3://BUCKET/PREFIX`, `https://…` (presigned PUT URL) or `tus+https://…`.
    package var target: String
    /// The S3 endpoint URL (`--upload-endpoint`); nil: the service's `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`.
    package var endpoint: String?
    /// The S3 region (`--upload-region`).
    package var region: String?
    /// `path` or `virtual` (`--upload-addressing`).
    package var addressing: String?
    /// The credentials profile (`--upload-profile`).
    package var profile: String?
    /// Delete the local file once the server's object was checked (size and checksum).
    package var deleteAfterUpload: Bool?
    /// The object name template (`--upload-name`), e.g. `{host}/{date}/{recording}/{file}`.
    package var nameTemplate: String?
    /// Preferred part size in MiB (S3; default 16).
    package var partSizeMiB: Int?
    /// `--upload-rate`: the service's upload bandwidth from now on (e.g. `20M`), for every upload.
    package var rate: String?

    /// Options for `target`.
    package init(target: String, endpoint: String? = nil, region: String? = nil, addressing: String? = nil, profile: String? = nil,
                deleteAfterUpload: Bool? = nil, nameTemplate: String? = nil, partSizeMiB: Int? = nil) {
        self.target = target
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.profile = profile
        self.deleteAfterUpload = deleteAfterUpload
        self.nameTemplate = nameTemplate
        self.partSizeMiB = partSizeMiB
    }
}
