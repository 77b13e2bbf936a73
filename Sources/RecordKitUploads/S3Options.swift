import Foundation

/// How to reach an S3-compatible server, as the client chose it (flags and config); what is
/// unset is taken from recordd's environment when the transfer runs (``resolved(environment:)``).
package struct S3Options: Codable, Sendable, Equatable {
    /// The endpoint URL (`--upload-endpoint`); nil: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`,
    /// else AWS (`https://s3.REGION.amazonaws.com`).
    package var endpoint: String?
    /// The region; nil: `AWS_REGION`, `AWS_DEFAULT_REGION`, else `us-east-1`.
    package var region: String?
    /// `path` or `virtual`; nil: virtual-host for AWS, path-style for any other endpoint.
    package var addressing: String?
    /// The credentials profile; nil: `AWS_PROFILE`, else `default`.
    package var profile: String?

    /// Options with everything from the environment.
    package init(endpoint: String? = nil, region: String? = nil, addressing: String? = nil, profile: String? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.profile = profile
    }

    /// The endpoint, region and addressing to use; throws on a malformed endpoint or addressing.
    package func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) throws(UploadError) -> (endpoint: URLComponents, region: String, pathStyle: Bool) {
        func env(_ k: String) -> String? { environment[k].flatMap { $0.isEmpty ? nil : $0 } }
        let region = self.region ?? env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? "us-east-1"
        let explicit = endpoint ?? env("AWS_ENDPOINT_URL_S3") ?? env("AWS_ENDPOINT_URL")
        let text = explicit ?? "https://s3.\(region).amazonaws.com"
        guard var c = URLComponents(string: text), let scheme = c.scheme, ["http", "https"].contains(scheme), c.host?.isEmpty == false,
              c.query == nil, c.user == nil else {
            throw UploadError(.badTarget, "the S3 endpoint '\(UploadTarget.redact(text))' is not an http(s) URL without a query: write e.g. --upload-endpoint http://127.0.0.1:9000")
        }
        if c.path == "/" { c.path = "" }
        let pathStyle: Bool
        switch addressing {
        case nil: pathStyle = explicit != nil
        case "path": pathStyle = true
        case "virtual": pathStyle = false
        case let other?: throw UploadError(.badTarget, "addressing '\(other)' is neither 'path' nor 'virtual'")
        }
        return (c, region, pathStyle)
    }
}
