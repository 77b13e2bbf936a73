import Foundation
import Glibc
import RecordKitSupport
import TOMLKit

/// The obs-websocket server's settings, kept in the private config file
/// `$XDG_CONFIG_HOME/recordkit/private.toml` (mode 0600: it holds the password):
///
/// ```toml
/// [obs-websocket]
/// enabled = true
/// port = 4455
/// password = "generated on first enable"
/// ```
///
/// Off by default; `recordctl obs-websocket enable` generates the password the first time. A
/// private file that others can read, or that is not a regular file owned by the user, is refused.
package struct OBSWebSocketSettings: Sendable, Equatable {
    /// Whether `recordd` serves obs-websocket.
    package var enabled = false
    /// The TCP port on 127.0.0.1.
    package var port = 4455
    /// The password (never empty once enabled).
    package var password = ""
    /// The RTMP endpoint `StartStream` broadcasts to (it holds the stream key, hence this private file), or nil.
    package var streamURL: String?
    /// The directory `StartRecord` writes into, or nil for the videos directory.
    package var recordDirectory: String?

    /// Settings with every value at its default (off).
    package init() {}

    /// Where the private config file is.
    package static func privatePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (ConfigFile.defaultPath(environment: environment) as NSString).deletingLastPathComponent + "/private.toml"
    }

    /// Reads the settings from `path`; a missing file gives the defaults.
    package init(path: String = OBSWebSocketSettings.privatePath()) throws(ConfigError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == getuid() else {
            throw ConfigError("\(path): not a regular file of yours; refusing to read secrets from it")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw ConfigError("\(path): holds secrets and is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))); run chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError("\(path): cannot be read as UTF-8 text")
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigError("\(path), line \(error.source.begin.line): \(error.description) (not valid TOML)")
        } catch { throw ConfigError("\(path): not valid TOML: \(error)") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let section = table["obs-websocket"] else { return }
        guard let obs = section.table else { throw ConfigError("\(path): obs-websocket must be a table: [obs-websocket]") }
        for key in obs.keys {
            let line = ConfigFile.line(of: key, in: lines)
            switch key {
            case "enabled":
                guard let b = obs[key]?.bool else { throw ConfigError("\(path), line \(line): obs-websocket.enabled must be true or false") }
                enabled = b
            case "port":
                guard let p = obs[key]?.int, (1...65_535).contains(p) else { throw ConfigError("\(path), line \(line): obs-websocket.port must be a port number (1-65535)") }
                port = p
            case "password":
                guard let s = obs[key]?.string, !s.isEmpty else { throw ConfigError("\(path), line \(line): obs-websocket.password must be a non-empty string") }
                password = s
            case "stream-url":
                guard let s = obs[key]?.string, s.hasPrefix("rtmp://") || s.hasPrefix("rtmps://") else {
                    throw ConfigError("\(path), line \(line): obs-websocket.stream-url must be an rtmp:// or rtmps:// URL")
                }
                streamURL = s
            case "record-directory":
                guard let s = obs[key]?.string, s.hasPrefix("/") else {
                    throw ConfigError("\(path), line \(line): obs-websocket.record-directory must be an absolute path")
                }
                recordDirectory = s
            default:
                throw ConfigError("\(path), line \(line): unknown key \"\(key)\" in [obs-websocket]; known: enabled, port, password, stream-url, record-directory")
            }
        }
    }

    /// Writes the settings to `path` atomically with mode 0600 (`AtomicFile`).
    package func save(to path: String = OBSWebSocketSettings.privatePath()) throws(ConfigError) {
        let directory = (path as NSString).deletingLastPathComponent
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw ConfigError("cannot create \(directory): \(error.localizedDescription)")
        }
        var text = "# RecordKit's private settings (secrets): keep this file mode 600.\n[obs-websocket]\nenabled = \(enabled)\nport = \(port)\npassword = \"\(Self.quote(password))\"\n"
        if let streamURL { text += "stream-url = \"\(Self.quote(streamURL))\"\n" }
        if let recordDirectory { text += "record-directory = \"\(Self.quote(recordDirectory))\"\n" }
        do throws(FileSystemError) {
            try AtomicFile.write(Array(text.utf8), to: path)
        } catch {
            throw ConfigError("cannot save the settings: \(error)")
        }
    }

    private static func quote(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// A new password: 24 letters and digits from the system's random source (~140 bits).
    package static func generatePassword() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        var rng = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))] })
    }
}
