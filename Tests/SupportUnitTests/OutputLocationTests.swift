import Foundation
import Glibc
import RecordKitSupport
import XCTest

/// `VideosDirectory` reads `user-dirs.dirs` as xdg-user-dirs writes it; `OutputFileName` gives
/// the desktop recorders' names and never reuses a taken one.
final class OutputLocationTests: XCTestCase {
    func testUserDirsForms() {
        let home = "/home/me"
        XCTAssertEqual(VideosDirectory.parseUserDirs("XDG_VIDEOS_DIR=\"$HOME/Movies\"\n", key: "XDG_VIDEOS_DIR", home: home), "/home/me/Movies")
        XCTAssertEqual(VideosDirectory.parseUserDirs("# c\n  XDG_VIDEOS_DIR=\"/srv/rec/\"  \n", key: "XDG_VIDEOS_DIR", home: home), "/srv/rec")
        XCTAssertNil(VideosDirectory.parseUserDirs("XDG_VIDEOS_DIR=\"$HOME/\"\n", key: "XDG_VIDEOS_DIR", home: home), "home itself means unset")
        XCTAssertNil(VideosDirectory.parseUserDirs("XDG_VIDEOS_DIR=\"relative\"\n", key: "XDG_VIDEOS_DIR", home: home))
        XCTAssertNil(VideosDirectory.parseUserDirs("XDG_MUSIC_DIR=\"$HOME/Music\"\n", key: "XDG_VIDEOS_DIR", home: home))
    }

    func testTheEnvironmentWinsAndHomeIsTheFallback() {
        let saved = (getenv("XDG_VIDEOS_DIR").map { String(cString: $0) }, getenv("XDG_CONFIG_HOME").map { String(cString: $0) })
        defer {
            if let v = saved.0 { setenv("XDG_VIDEOS_DIR", v, 1) } else { unsetenv("XDG_VIDEOS_DIR") }
            if let v = saved.1 { setenv("XDG_CONFIG_HOME", v, 1) } else { unsetenv("XDG_CONFIG_HOME") }
        }
        setenv("XDG_VIDEOS_DIR", "/tmp/videos-here/", 1)
        XCTAssertEqual(VideosDirectory.path(), "/tmp/videos-here")
        unsetenv("XDG_VIDEOS_DIR")
        setenv("XDG_CONFIG_HOME", "/nonexistent-config-\(UUID().uuidString)", 1)
        XCTAssertEqual(VideosDirectory.path(), VideosDirectory.homeDirectory() + "/Videos")
    }

    func testStampedNamesAreUniqueInTheirDirectory() throws {
        let directory = NSTemporaryDirectory() + "names-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let when: time_t = 1_700_000_000
        let first = OutputFileName.unused("Replay", in: directory, at: when, extension: "mp4")
        XCTAssertTrue(first.hasPrefix(directory + "/Replay 20"), first)
        XCTAssertTrue(first.hasSuffix(".mp4") && first.contains(" at "), first)
        XCTAssertEqual(first, directory + "/" + OutputFileName.stamped("Replay", at: when, extension: "mp4"))
        _ = FileManager.default.createFile(atPath: first, contents: Data())
        let second = OutputFileName.unused("Replay", in: directory, at: when, extension: "mp4")
        XCTAssertEqual(second, String(first.dropLast(4)) + " (2).mp4")
    }

    func testTheMonotonicClockNeverGoesBack() {
        var last = MonotonicClock.nanoseconds()
        for _ in 0..<10_000 {
            let now = MonotonicClock.nanoseconds()
            XCTAssertGreaterThanOrEqual(now, last)
            last = now
        }
        XCTAssertEqual(MonotonicClock.seconds(), Double(MonotonicClock.nanoseconds()) / 1e9, accuracy: 0.5)
    }
}
