import Foundation
import XCTest

extension EndToEndTestCase {
    /// A moving test pattern (ffplay `testsrc2` at 30 fps) at the top left of the rig's screen,
    /// closed when the test ends; returns once it has had two seconds to show.
    func movingPattern(size: String = "320x240", title: String = "rk-moving-pattern") throws {
        var environment = rig.environment
        environment["SDL_VIDEODRIVER"] = "x11"
        environment["SDL_RENDER_DRIVER"] = "software"
        environment["SDL_FRAMEBUFFER_ACCELERATION"] = "0"
        let p = try RunningProcess("ffplay", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30",
                                              "-an", "-noborder", "-left", "0", "-top", "0", "-window_title", title],
                                   environment: environment)
        addTeardownBlock { p.terminate(grace: 1) }
        Thread.sleep(forTimeInterval: 2)
    }
}

extension FFprobe {
    /// Each video packet of `path` in decode order: its presentation time and the MD5 of its
    /// bytes (to compare the packets of a file, its split parts and its replay clips).
    static func videoPacketHashes(_ path: String) throws -> [(pts: Double, hash: String)] {
        let data = try ProcessRunner.output("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5",
                                                        "-show_entries", "packet=pts_time,data_hash", "-of", "csv=p=0", path], timeout: 120)
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",")
            guard f.count >= 2, let pts = Double(f[0]) else { return nil }
            return (pts, String(f[1]))
        }
    }
}
