import TOMLKit

/// One table of the config file (`[uploads]`, `[hooks]`, a profile, the top level) and the one
/// read-check-convert pattern every table shares: each key is read with its type checked, and a
/// mistake is a ``ConfigError`` that names the file, the line and what to write
/// (`…, line 3: uploads.part-size must be MiB, a whole number from 5 to 5120`). Written here
/// because TOMLKit gives values without their lines.
struct ConfigTable {
    /// The TOML table.
    let table: TOMLTable
    /// Its name in messages (`uploads`, `profiles.live`), empty for the top level.
    let name: String
    /// The file, for messages.
    let path: String
    /// The line of a key of this table.
    let line: (String) -> Int

    /// The keys written in the table.
    var keys: [String] { table.keys }

    /// `key` as messages name it: `uploads.target`, or `fps` at the top level.
    func qualified(_ key: String) -> String { name.isEmpty ? key : "\(name).\(key)" }

    /// "`path`, line N: `qualified(key)` must be `what`".
    func mistake(_ key: String, mustBe what: String) -> ConfigError {
        ConfigError("\(path), line \(line(key)): \(qualified(key)) must be \(what)")
    }

    /// "unknown key in [name]; known: …".
    func unknown(_ key: String, known: [String], kind: String = "key") -> ConfigError {
        ConfigError("\(path), line \(line(key)): unknown \(kind) \"\(key)\" in [\(name)]; known: " + known.joined(separator: ", "))
    }

    /// Calls `read` for each key of `known` that is written, in the file's order; an unknown key is an error.
    func read(known: [String], kind: String = "key", _ read: (String) throws(ConfigError) -> Void) throws(ConfigError) {
        for key in keys {
            guard known.contains(key) else { throw unknown(key, known: known, kind: kind) }
            try read(key)
        }
    }

    /// A non-empty string.
    func string(_ key: String, mustBe what: String = "a non-empty string") throws(ConfigError) -> String {
        guard let s = table[key]?.string, !s.isEmpty else { throw mistake(key, mustBe: what) }
        return s
    }

    /// `true` or `false`.
    func bool(_ key: String) throws(ConfigError) -> Bool {
        guard let b = table[key]?.bool else { throw mistake(key, mustBe: "true or false") }
        return b
    }

    /// A whole number in `range`.
    func int(_ key: String, in range: ClosedRange<Int>, mustBe what: String) throws(ConfigError) -> Int {
        guard let n = table[key]?.int, range.contains(n) else { throw mistake(key, mustBe: what) }
        return n
    }

    /// A number (whole or not) in `range`.
    func double(_ key: String, in range: ClosedRange<Double>, mustBe what: String) throws(ConfigError) -> Double {
        guard let d = table[key]?.double ?? table[key]?.int.map(Double.init), d.isFinite, range.contains(d) else { throw mistake(key, mustBe: what) }
        return d
    }

    /// One string or a list of strings.
    func strings(_ key: String, mustBe what: String) throws(ConfigError) -> [String] {
        if let one = table[key]?.string { return [one] }
        guard let list = table[key]?.array else { throw mistake(key, mustBe: what) }
        var result: [String] = []
        for item in list {
            guard let s = item.string else { throw mistake(key, mustBe: what) }
            result.append(s)
        }
        return result
    }

    /// The sub-table `key` (`[profiles.live.uploads]`), or an error saying how to write it.
    func subtable(_ key: String) throws(ConfigError) -> ConfigTable {
        guard let t = table[key]?.table else {
            throw ConfigError("\(path), line \(line(key)): \(qualified(key)) must be a table: [\(qualified(key))]")
        }
        return ConfigTable(table: t, name: qualified(key), path: path, line: line)
    }
}
