import Foundation
import TOMLKit

/// The config file's `[rtmp]` table (docs/RTMP.md, "RTMPS"):
///
/// ```toml
/// [rtmp]
/// ca-file = "/etc/ssl/my-ca.pem"   # for rtmps://: trust this CA instead of the system's store
/// ```
///
/// `--rtmp-ca-file` overrides it.
package struct RTMPSettings: Sendable, Equatable {
    /// A PEM file of certificate authorities to trust for `rtmps://` endpoints, absolute (`~/`
    /// expanded); nil for the system's store.
    package var caFile: String?

    /// Nothing set.
    package init() {}

    /// Reads and checks the table.
    init(_ t: ConfigTable) throws(ConfigError) {
        try t.read(known: ["ca-file"]) { key throws(ConfigError) in
            let file = try t.string(key, mustBe: "the absolute path of a PEM file (a string starting with / or ~/)")
            guard file.hasPrefix("/") || file.hasPrefix("~/") else { throw t.mistake(key, mustBe: "the absolute path of a PEM file (a string starting with / or ~/)") }
            caFile = (file as NSString).expandingTildeInPath
        }
    }
}
