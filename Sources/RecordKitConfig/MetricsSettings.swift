import TOMLKit

/// The config file's `[metrics]` table (docs/METRICS.md): the opt-in Prometheus endpoint.
///
/// ```toml
/// [metrics]
/// enabled = true
/// port = 9464      # on 127.0.0.1
/// ```
package struct MetricsSettings: Sendable, Equatable {
    /// Whether `recordd` serves `/metrics`.
    package var enabled = false
    /// The TCP port on 127.0.0.1.
    package var port = 9464

    /// Off.
    package init() {}

    /// Reads and checks the table.
    init(_ t: ConfigTable) throws(ConfigError) {
        try t.read(known: ["enabled", "port"]) { key throws(ConfigError) in
            switch key {
            case "enabled": enabled = try t.bool(key)
            default: port = try t.int(key, in: 1...65_535, mustBe: "a port number (1-65535)")
            }
        }
    }
}
