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

    /// Reads and checks the table; `line` gives the line of a key, for messages.
    init(_ table: TOMLTable, path: String, line: (String) -> Int) throws(ConfigError) {
        for key in table.keys {
            switch key {
            case "ca-file":
                guard let file = table[key]?.string, file.hasPrefix("/") || file.hasPrefix("~/") else {
                    throw ConfigError("\(path), line \(line(key)): rtmp.ca-file must be the absolute path of a PEM file (a string starting with / or ~/)")
                }
                caFile = (file as NSString).expandingTildeInPath
            default:
                throw ConfigError("\(path), line \(line(key)): unknown key \"\(key)\" in [rtmp]; known: ca-file")
            }
        }
    }
}
