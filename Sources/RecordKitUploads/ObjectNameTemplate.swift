import Foundation

/// The object key of an upload: `PREFIX/` + the template with `{host}` (the short host name),
/// `{date}` (UTC, YYYY-MM-DD), `{time}` (UTC, HHMMSS), `{recording}` (the recording id, or the
/// upload id for a file uploaded by itself), `{upload}` (the upload id) and `{file}` (the
/// file's name) filled in. Default: `{host}/{date}/{recording}/{file}`: many machines share a
/// bucket without collisions (docs/UPLOADS.md). Pure.
package struct ObjectNameTemplate: Sendable {
    package static let defaultTemplate = "{host}/{date}/{recording}/{file}"
    package var template: String

    /// A template (nil or empty: the default).
    package init(_ template: String?) {
        self.template = (template?.isEmpty ?? true) ? Self.defaultTemplate : template!
    }

    /// The key for the given values; characters outside `A-Za-z0-9._-` in host, ids and the
    /// file name become `_` (the template's own `/` stay).
    package func key(prefix: String, host: String, date: Date, recording: String?, upload: String, file: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        let day = f.string(from: date)
        f.dateFormat = "HHmmss"
        let time = f.string(from: date)
        var s = template
        for (k, v) in [("{host}", host), ("{date}", day), ("{time}", time), ("{recording}", recording ?? upload),
                       ("{upload}", upload), ("{file}", file)] {
            s = s.replacingOccurrences(of: k, with: Self.clean(v))
        }
        // No empty, `.` or `..` component: a key never climbs out of its prefix.
        s = s.split(separator: "/").map { $0 == "." || $0 == ".." ? "_" : String($0) }.joined(separator: "/")
        return prefix.isEmpty ? s : prefix + "/" + s
    }

    private static func clean(_ v: String) -> String {
        let t = String(v.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") ? $0 : "_" })
        return t.isEmpty || t == "." || t == ".." ? "_" : t
    }
}
