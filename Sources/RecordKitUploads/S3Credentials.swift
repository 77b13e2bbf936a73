import Foundation
import Glibc

/// An S3 key pair (and session token). Never printed: ``description`` shows the access key id
/// only, so an interpolation by mistake leaks nothing.
package struct S3Credentials: Sendable, CustomStringConvertible {
    package var accessKeyID: String
    package var secretAccessKey: String
    package var sessionToken: String?

    /// Credentials from their parts.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    package var description: String { "S3Credentials(\(accessKeyID), secret hidden)" }

    /// The credentials the service uses, first found wins: `AWS_ACCESS_KEY_ID` +
    /// `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`) in `environment`; the profile `profile`
    /// (else `AWS_PROFILE`, else `default`) of `AWS_SHARED_CREDENTIALS_FILE` or
    /// `~/.aws/credentials`; the same profile of RecordKit's own credentials file
    /// (`$XDG_CONFIG_HOME/recordkit/credentials`), which is refused unless it is private to the
    /// user (mode 0600 or stricter). Throws a message that names where to put them, never a secret.
    package static func resolve(profile: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(UploadError) -> S3Credentials {
        if let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty {
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        }
        let name = profile ?? environment["AWS_PROFILE"] ?? "default"
        let home = environment["HOME"] ?? NSHomeDirectory()
        let shared = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        if let c = try fromINI(path: shared, profile: name, requirePrivate: false) { return c }
        let config = (environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config") + "/recordkit/credentials"
        if let c = try fromINI(path: config, profile: name, requirePrivate: true) { return c }
        throw UploadError(.credentials, "no S3 credentials for the service: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in recordd's environment, "
                          + "or add profile [\(name)] to \(shared) or to \(config) (mode 0600)")
    }

    /// The profile `profile` of an AWS-style INI file; nil when the file or the profile is absent.
    package static func fromINI(path: String, profile: String, requirePrivate: Bool) throws(UploadError) -> S3Credentials? {
        var st = stat()
        guard fstatat(AT_FDCWD, path, &st, 0) == 0 else { return nil }
        if requirePrivate, st.st_mode & 0o077 != 0 || st.st_uid != getuid() {
            throw UploadError(.credentials, "\(path) is readable by other users: run `chmod 600 \(path)`; its credentials are not used until then")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var section = ""
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                if section.hasPrefix("profile ") { section = String(section.dropFirst(8)) }
                continue
            }
            guard section == profile, let eq = line.firstIndex(of: "=") else { continue }
            values[line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else { return nil }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }
}
