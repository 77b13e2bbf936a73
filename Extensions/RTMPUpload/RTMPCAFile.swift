import Foundation
import RecordKit

/// Checks the file given as ``RTMPOutputOptions/caFile`` before anything connects: libavformat's
/// `tls` protocol only logs a CA file it cannot load and then trusts nothing, so every server
/// would read as "certificate not trusted" instead of "your file is wrong".
enum RTMPCAFile {
    /// Returns normally when `path` is a readable file holding at least one PEM certificate;
    /// otherwise throws ``BroadcastError/Kind/invalidSetup`` naming the path (no secret) and
    /// what to do.
    static func check(_ path: String) throws(BroadcastError) {
        let fix = "give a PEM file of certificate authorities (-----BEGIN CERTIFICATE-----) with --rtmp-ca-file"
        guard path.hasPrefix("/") else {
            throw BroadcastError(.invalidSetup, "the RTMPS CA file '\(path)' is not an absolute path: \(fix)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw BroadcastError(.invalidSetup, "the RTMPS CA file \(path) does not exist or is a directory: \(fix)")
        }
        // A CA bundle is small (the system's is about 200 kB); 16 MB bounds a wrong file.
        guard let handle = FileHandle(forReadingAtPath: path),
              let data = try? handle.read(upToCount: 16 << 20) else {
            throw BroadcastError(.invalidSetup, "the RTMPS CA file \(path) cannot be read (permissions?): \(fix)")
        }
        try? handle.close()
        guard data.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw BroadcastError(.invalidSetup, "the RTMPS CA file \(path) holds no PEM certificate: \(fix)")
        }
    }
}
