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

    /// Reads and checks the table; `line` gives the line of a key, for messages.
    init(_ table: TOMLTable, path: String, line: (String) -> Int) throws(ConfigError) {
        for key in table.keys {
            switch key {
            case "enabled":
                guard let b = table[key]?.bool else { throw ConfigError("\(path), line \(line(key)): metrics.enabled must be true or false") }
                enabled = b
            case "port":
                guard let p = table[key]?.int, (1...65_535).contains(p) else { throw ConfigError("\(path), line \(line(key)): metrics.port must be a port number (1-65535)") }
                port = p
            default:
                throw ConfigError("\(path), line \(line(key)): unknown key \"\(key)\" in [metrics]; known: enabled, port")
            }
        }
    }
}
