import Foundation
import Glibc
import RecordKitSupport
import XCTest

/// `AtomicFile`: the destination is whole or untouched, no temporary file survives, the mode
/// is the one asked for, and an existing file is never replaced when replacing is off.
final class AtomicFileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "atomic-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        chmod(directory, 0o700)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func entries() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }

    func testWriteReplacesWholeWithThePrivateModeAndLeavesNoTemporaryFile() throws {
        let path = directory + "/journal.json"
        try AtomicFile.write(Array("first".utf8), to: path)
        let big = [UInt8](repeating: 0x41, count: 3 << 20)
        try AtomicFile.write(big, to: path)
        XCTAssertEqual(FileManager.default.contents(atPath: path).map { [UInt8]($0) }, big)
        XCTAssertEqual(entries(), ["journal.json"], "no temporary file is left")
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        try AtomicFile.write(Array("x".utf8), to: path, permissions: 0o644)
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o644, "the mode asked for, whatever the umask")
    }

    func testAFailedWriteLeavesTheOldFileAndSaysWhere() throws {
        let path = directory + "/settings.toml"
        try AtomicFile.write(Array("old".utf8), to: path)
        guard getuid() != 0 else {
            // root ignores directory permissions: use a path whose directory does not exist.
            XCTAssertThrowsError(try AtomicFile.write(Array("new".utf8), to: directory + "/missing/settings.toml")) { error in
                XCTAssertTrue("\(error)".contains("cannot create \(directory)/missing/"), "\(error)")
            }
            XCTAssertEqual(FileManager.default.contents(atPath: path), Data("old".utf8))
            return
        }
        chmod(directory, 0o500)
        XCTAssertThrowsError(try AtomicFile.write(Array("new".utf8), to: path)) { error in
            XCTAssertTrue("\(error)".contains("Permission denied"), "\(error)")
        }
        chmod(directory, 0o700)
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("old".utf8))
        XCTAssertEqual(entries(), ["settings.toml"])
    }

    func testPublishWithoutReplacingRefusesAnExistingNameAndKeepsBoth() throws {
        let destination = directory + "/Recording.mp4", temporary = directory + "/.Recording.mp4.part"
        _ = FileManager.default.createFile(atPath: destination, contents: Data("theirs".utf8))
        _ = FileManager.default.createFile(atPath: temporary, contents: Data("ours".utf8))
        XCTAssertThrowsError(try AtomicFile.publish(temporary: temporary, as: destination, replacing: false)) { error in
            XCTAssertEqual((error as? FileSystemError)?.code, EEXIST, "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: destination), Data("theirs".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: temporary), Data("ours".utf8), "the caller decides what to do with it")
        try FileManager.default.removeItem(atPath: destination)
        try AtomicFile.publish(temporary: temporary, as: destination, replacing: false)
        XCTAssertEqual(entries(), ["Recording.mp4"])
        XCTAssertEqual(FileManager.default.contents(atPath: destination), Data("ours".utf8))
    }

    func testDirectoryOfPaths() {
        XCTAssertEqual(AtomicFile.directory(of: "/a/b.mp4"), "/a")
        XCTAssertEqual(AtomicFile.directory(of: "/b.mp4"), "/")
        XCTAssertEqual(AtomicFile.directory(of: "b.mp4"), ".")
    }
}
