import RecordKitBuiltins
import Foundation
import RecordKit
import RecordKitExtensions
import RecordKitService
import ExtensionTestSupport
import XCTest

/// Discovery: built-in extensions, the user's directory and --extensions-dir; precedence; the
/// reason a broken extension cannot load; and resolving requests before recording starts.
final class ExtensionCatalogTests: XCTestCase {
    private func manifest(_ name: String, entry: String = #"{"executable": "run"}"#) -> String {
        #"{"name": "\#(name)", "version": "2.1.0", "entry": \#(entry), "input": {"audioApp": {"format": "pcm"}}, "setup": {"k": {"type": "int", "default": 1}}}"#
    }

    func testFindsBuiltInUserAndExtraDirectoriesAndExplainsBrokenOnes() throws {
        let root = try ExtensionFixtures.temporaryDirectory(self)
        let user = root + "/data/recordkit/extensions", extra = root + "/extra"
        try ExtensionFixtures.makeExtension(in: user, name: "alpha", manifest: manifest("alpha"), program: "/bin/true")
        try FileManager.default.createSymbolicLink(atPath: user + "/alpha/run", withDestinationPath: "/bin/true")
        try ExtensionFixtures.makeExtension(in: user, name: "no-exec", manifest: manifest("no-exec"))
        try ExtensionFixtures.makeExtension(in: user, name: "not-exec", manifest: manifest("not-exec"))
        _ = FileManager.default.createFile(atPath: user + "/not-exec/run", contents: Data("#!/bin/sh\n".utf8))
        try ExtensionFixtures.makeExtension(in: user, name: "swift", manifest: manifest("swift", entry: #"{"swiftTarget": "Mine"}"#))
        try ExtensionFixtures.makeExtension(in: user, name: "file", manifest: manifest("file"))
        try FileManager.default.createSymbolicLink(atPath: user + "/file/run", withDestinationPath: "/bin/true")
        try FileManager.default.createDirectory(atPath: user + "/empty", withIntermediateDirectories: true)
        try ExtensionFixtures.makeExtension(in: extra, name: "alpha", manifest: manifest("alpha"))
        try FileManager.default.createSymbolicLink(atPath: extra + "/alpha/run", withDestinationPath: "/bin/true")

        let catalog = BuiltinExtensions.catalog(extensionsDirectories: [extra], environment: ["XDG_DATA_HOME": root + "/data"])
        let byPlace = catalog.entries.map { "\($0.name)@\($0.origin)" }
        XCTAssertEqual(byPlace, ["file@built-in", "rtmp@built-in", "replay-buffer@built-in", "preview@built-in", "alpha@--extensions-dir", "alpha@user", "empty@user", "file@user",
                                 "no-exec@user", "not-exec@user", "swift@user"])
        XCTAssertEqual(catalog.entry(named: "alpha")?.origin, .extensionsDirectory, "--extensions-dir shadows the user's directory")
        XCTAssertEqual(catalog.entry(named: "alpha")?.version, "2.1.0")
        func reason(_ name: String, _ origin: ExtensionOrigin) -> String {
            catalog.entries.first { $0.name == name && $0.origin == origin }?.brokenReason ?? "(usable)"
        }
        XCTAssertEqual(reason("alpha", .userDirectory), "another extension named 'alpha' is used instead: \(extra)/alpha")
        XCTAssertEqual(reason("file", .userDirectory), "another extension named 'file' is used instead: the built-in extension")
        XCTAssertEqual(reason("empty", .userDirectory), "no manifest.json in its directory")
        XCTAssertEqual(reason("no-exec", .userDirectory), "its executable \(user)/no-exec/run does not exist (entry.executable in \(user)/no-exec/manifest.json)")
        XCTAssertEqual(reason("not-exec", .userDirectory), "its executable \(user)/not-exec/run is not an executable file (chmod +x it)")
        XCTAssertTrue(reason("swift", .userDirectory).contains("entry.swiftTarget \"Mine\" is only for extensions built into recordctl"))
    }

    func testAnExtensionsDirCanBeOneExtensionItself() throws {
        let catalog = ExtensionCatalog.discover(builtins: [], extensionsDirectories: [ExtensionFixtures.packageRoot + "/Extensions/python-example/"],
                                                environment: ["XDG_DATA_HOME": "/nonexistent"])
        XCTAssertEqual(catalog.entries.map(\.name), ["python-example"])
        XCTAssertNotNil(catalog.entries.first?.manifest)
    }

    func testRequestsResolveToRegistrationsOrClearErrors() throws {
        let root = try ExtensionFixtures.temporaryDirectory(self)
        try ExtensionFixtures.makeExtension(in: root, name: "raw", manifest: ExtensionFixtures.fixtureManifest(name: "raw"), program: "/bin/true")
        let catalog = BuiltinExtensions.catalog(extensionsDirectories: [root], environment: ["XDG_DATA_HOME": "/nonexistent"])
        let regs = try catalog.registrations(for: [ExtensionRequest(name: "raw", setup: ["after": "4"]), ExtensionRequest(name: "raw"),
                                                   ExtensionRequest(name: "file", setup: ["path": "/tmp/x.mkv"])])
        XCTAssertEqual(regs.map(\.name), ["raw", "raw-2", "file"])
        XCTAssertEqual(regs[0].setupInfo.values, ["after": "4", "delayMs": "0", "log": "", "mode": "log"])
        XCTAssertTrue(regs[0].handler is ExtensionProcessHandler)

        func refused(_ request: ExtensionRequest, _ kind: ExtensionError.Kind, _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try catalog.registrations(for: [request]), line: line) { error in
                XCTAssertEqual((error as? ExtensionError)?.kind, kind, line: line)
                XCTAssertTrue("\(error)".contains(message), "\(error)", line: line)
            }
        }
        refused(ExtensionRequest(name: "nope"), .unknownExtension, "no extension named 'nope'; available: file, preview, raw, replay-buffer, rtmp (see `recordctl extensions`)")
        refused(ExtensionRequest(name: "raw", setup: ["after": "x"]), .invalidSetup, "must be an integer")
        refused(ExtensionRequest(name: "rtmp"), .invalidSetup, "extension 'rtmp' needs setup key 'url'")
        refused(ExtensionRequest(name: "file", setup: ["format": "avi"]), .invalidSetup, "extension 'file': format must be mp4 or mkv, got 'avi'")
    }
}
