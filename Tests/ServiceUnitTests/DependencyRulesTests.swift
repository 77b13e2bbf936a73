import Foundation
import ExtensionTestSupport
import XCTest

/// docs/ARCHITECTURE.md's "Parts" table and its "never" rules hold for the package as it is, and the check
/// notices when one is broken.
final class DependencyRulesTests: XCTestCase {
    func testThePackageKeepsDesignsDependencyRules() throws {
        let targets = try DependencyRules.load(packageRoot: URL(fileURLWithPath: ExtensionFixtures.packageRoot))
        XCTAssertGreaterThan(targets.count, 10, "targets were read from Package.swift")
        for name in DependencyRules.allowed.keys {
            XCTAssertTrue(targets.contains { $0.name == name }, "\(name) is in Package.swift")
        }
        XCTAssertTrue(targets.first { $0.name == "RecordKitService" }?.imports.contains("RecordKitPipeline") ?? false,
                      "imports were read from the files")
        let options = DependencyRules.handlerOptions(packageRoot: URL(fileURLWithPath: ExtensionFixtures.packageRoot))
        XCTAssertTrue(options.isSuperset(of: ["--output", "--no-file", "--rtmp", "--srt", "--replay-buffer", "--preview"]),
                      "the handlers' options were read from their manifests: \(options.sorted())")
        XCTAssertEqual(DependencyRules.violations(targets, handlerOptions: options), [])
    }

    /// Extensions/SDK, the package extension authors depend on, holds the SDK's whole closure in
    /// the root package, each target a link to the root's own sources (one copy of each), and
    /// nothing else: no package dependencies, so an extension resolves and builds in a minute.
    func testTheSDKPackageIsTheSDKsClosureLinkedToTheRootsSources() throws {
        let root = URL(fileURLWithPath: ExtensionFixtures.packageRoot)
        var closure: Set<String> = [], pending = ["RecordKitExtensionSDK"]
        while let name = pending.popLast() {
            guard closure.insert(name).inserted else { continue }
            pending += DependencyRules.allowed[name, default: []]
        }
        let sdk = root.appendingPathComponent("Extensions/SDK")
        let linked = try FileManager.default.contentsOfDirectory(atPath: sdk.appendingPathComponent("Sources").path)
        XCTAssertEqual(Set(linked), closure, "Extensions/SDK/Sources links exactly the SDK's closure")
        for name in linked {
            let destination = try FileManager.default.destinationOfSymbolicLink(atPath: sdk.appendingPathComponent("Sources/\(name)").path)
            XCTAssertEqual(destination, "../../../Sources/\(name)", "Extensions/SDK/Sources/\(name) links the root's target")
        }
        let manifest = try String(contentsOf: sdk.appendingPathComponent("Package.swift"), encoding: .utf8)
        let code = manifest.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
        XCTAssertFalse(code.contains { $0.contains(".package(") }, "Extensions/SDK depends on no package")
        for name in closure { XCTAssertTrue(manifest.contains("name: \"\(name)\""), "Extensions/SDK declares \(name)") }
    }

    /// The service and the command line spell no handler's option: spelling one is reported.
    func testSpellingAHandlersOptionIsReported() throws {
        let root = URL(fileURLWithPath: ExtensionFixtures.packageRoot)
        let options = DependencyRules.handlerOptions(packageRoot: root)
        let targets = try DependencyRules.load(packageRoot: root).map { t in
            var t = t
            if t.name == "RecordKitService" || t.name == "recordctl" { t.optionLiterals.insert("--replay-buffer") }
            return t
        }
        let found = DependencyRules.violations(targets, handlerOptions: options)
        XCTAssertTrue(found.contains { $0.hasPrefix("RecordKitService spells the declared option --replay-buffer") }, "\(found)")
        XCTAssertTrue(found.contains { $0.hasPrefix("recordctl spells the declared option --replay-buffer") }, "\(found)")
    }

    /// recordctl names no declared option in any form: a hand-written set of bare names (as its
    /// `--help` interception and `--no-file` check once had), a property ArgumentParser turns into
    /// `--no-file`, or a message of record/start's that quotes one are each reported; another
    /// verb's own option of the same spelling (`stop --output`) is not.
    func testAHandWrittenCopyOfDeclaredOptionsInRecordctlIsReported() throws {
        let root = URL(fileURLWithPath: ExtensionFixtures.packageRoot)
        let options = DependencyRules.handlerOptions(packageRoot: root)
        XCTAssertTrue(options.isSuperset(of: ["--camera", "--camera-position", "-o"]), "sources' declarations and short spellings read: \(options.sorted())")
        let injected = """
            extension RecordCtl {
                static let outputOptionNames: Set<String> = ["output", "format", "no-file", "rtmp"]  // a copy
            }
            struct RecordingOptions: ParsableArguments {
                @Flag(help: "Write no file.")
                var noFile = false
                @Option(name: .customLong("replay-buffer"), help: "Seconds.")
                var seconds: Int?
                func validate() throws { if noFile { throw ValidationError("contradicts --split-every") } }
            }
            struct StopCommand: ParsableCommand {
                @Option(name: .shortAndLong, help: ArgumentHelp("Deliver the file here.", valueName: "FILE"))
                var output: String?
                func validate() throws { if output == nil { throw ValidationError("--output needs a FILE") } }
            }
            """
        let targets = try DependencyRules.load(packageRoot: root).map { t in
            var t = t
            if t.name == "recordctl" { t.spellings.add(injected, file: "Injected.swift") }
            return t
        }
        let found = DependencyRules.violations(targets, handlerOptions: options).filter { $0.hasPrefix("recordctl (") }
        for expected in ["(RecordCtl) spells the declared option --no-file", "(RecordCtl) spells the declared option --rtmp",
                         "(RecordingOptions) spells the declared option --no-file", "(RecordingOptions) spells the declared option --replay-buffer",
                         "(RecordingOptions) spells the declared option --split-every"] {
            XCTAssertTrue(found.contains { $0.contains(expected) }, "\(expected) in \(found)")
        }
        XCTAssertFalse(found.contains { $0.contains("(StopCommand)") }, "stop's own --output is its own: \(found)")
    }

    func testABrokenRuleIsReported() throws {
        let targets = try DependencyRules.load(packageRoot: URL(fileURLWithPath: ExtensionFixtures.packageRoot))
        func broken(_ name: String, importing module: String) -> [String] {
            DependencyRules.violations(targets.map { t in
                var t = t
                if t.name == name { t.imports.insert(module) }
                return t
            })
        }
        XCTAssertTrue(broken("RecordKitService", importing: "FileUploadExtension").contains { $0.contains("names a concrete handler") })
        XCTAssertTrue(broken("recordctl", importing: "RecordKitPipeline").contains { $0.contains("recordctl depends on RecordKitPipeline") })
        XCTAssertTrue(broken("RecordKit", importing: "CFFmpeg").contains { $0.contains("imports a C module") })
        XCTAssertTrue(broken("RTMPUploadExtension", importing: "FileUploadExtension").contains { $0.contains("imports another handler") })
        XCTAssertTrue(broken("RecordKitMedia", importing: "RTMPUploadExtension").contains { $0.contains("names a concrete handler") })
        // The thin client: reaching FFmpeg through another target is caught too.
        XCTAssertTrue(broken("recordctl", importing: "RecordKitService").contains { $0.contains("recordctl reaches CFFmpeg") })
        XCTAssertTrue(broken("RecordKitControl", importing: "RecordKitCapture").contains { $0.contains("RecordKitControl reaches CX11") })
        // The service gets the built-ins from the executables: linking their list is caught,
        // directly and through another target.
        XCTAssertTrue(broken("RecordKitService", importing: "RecordKitBuiltins").contains { $0.contains("RecordKitService reaches FileUploadExtension") })
        XCTAssertTrue(broken("RecordKitExtensions", importing: "RecordKitBuiltins").contains { $0.contains("RecordKitService reaches PreviewExtension") })
        // A target nobody put in the table is reported, not skipped.
        let stranger = DependencyRules.Target(name: "rk-new-part", dependencies: ["RecordKitMedia"], imports: [])
        XCTAssertEqual(DependencyRules.violations(targets + [stranger]).filter { $0.hasPrefix("rk-new-part") }.count, 1)
    }
}
