import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the rig's nginx-rtmp recorded (`record all` into `$RK_RTMP_REC_DIR`, one
/// `<key>-<unix time>.flv` per publish), for the RTMP and RTMPS tests.
enum RTMPServerRecordings {
    /// The recordings of `key`, once at least `count` exist and nginx has closed them (their
    /// sizes stopped changing); what exists after `timeout` seconds otherwise.
    static func wait(for key: String, in dir: String, count: Int, timeout: Double = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [Int] = []
        var files: [String] = []
        while Date() < deadline {
            files = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
                .filter { $0.hasPrefix(key + "-") && $0.hasSuffix(".flv") }.sorted().map { dir + "/" + $0 }
            let sizes = files.map { ((try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? Int) ?? 0 }
            if files.count >= count, sizes == last { return files }
            last = sizes
            usleep(300_000)
        }
        return files
    }

    /// Deletes the recordings of `key`.
    static func remove(_ key: String, in dir: String) {
        for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where f.hasPrefix(key + "-") {
            try? FileManager.default.removeItem(atPath: dir + "/" + f)
        }
    }
}
