import Foundation
import XCTest

/// The chapters of a movie as ffprobe reads them (title and start in seconds), for the chapter
/// and split tests.
enum FFprobeChapters {
    static func read(_ path: String) throws -> [(title: String, start: Double)] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-show_chapters", "-of", "json", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (root["chapters"] as? [[String: Any]] ?? []).map { chapter in
            let tags = chapter["tags"] as? [String: Any] ?? [:]
            return (tags["title"] as? String ?? "", Double(chapter["start_time"] as? String ?? "") ?? -1)
        }
    }
}
