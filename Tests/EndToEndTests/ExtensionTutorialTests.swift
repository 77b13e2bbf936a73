import Foundation
import XCTest

/// docs/TUTORIAL-first-extension.md, run step by step from an empty directory: the new package
/// builds against this checkout's SDK product, installs into a fresh `XDG_DATA_HOME`, is listed
/// by `recordctl extensions`, and writes its statistics during a real recording.
///
/// The steps come from the page itself (`<!-- tutorial: file PATH -->` before a block writes it,
/// `<!-- tutorial: run … -->` runs it with bash), so the page cannot drift from what works.
final class ExtensionTutorialTests: EndToEndTestCase {
    func testTheTutorialFromAnEmptyDirectory() throws {
        let page = try String(contentsOf: packageRoot.appendingPathComponent("docs/TUTORIAL-first-extension.md"), encoding: .utf8)
        let steps = TutorialStep.parse(page)
        XCTAssertGreaterThanOrEqual(steps.filter { if case .run = $0 { return true }; return false }.count, 6, "the page's steps were not found")

        // An empty directory, and this checkout under a name that is not "RecordKit" (CI's and
        // developers' clones are called anything): the page's RECORDKIT_CHECKOUT points at it.
        let root = path("tutorial")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/my-recordkit-clone", withDestinationPath: packageRoot.path)
        let recordctl = try rig.recordctlPath()
        let environment = rig.environment([
            "RECORDKIT_CHECKOUT": root + "/my-recordkit-clone",
            "XDG_DATA_HOME": root + "/data",
            "PATH": URL(fileURLWithPath: recordctl).deletingLastPathComponent().path + ":" + (rig.environment["PATH"] ?? "/usr/bin:/bin"),
        ])
        _ = try window(size: (800, 600), position: (50, 50), color: 0x3366CC, extraArguments: ["--flash-every", "0.5"])

        var cwd = root
        let cwdFile = root + "/.cwd"
        for step in steps {
            switch step {
            case .file(let relative, let content):
                let target = cwd + "/" + relative
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try content.write(toFile: target, atomically: true, encoding: .utf8)
            case .run(let script, let expectOut, let expectErr, let exitCode):
                // Builds are slow on a 2-core machine: a generous bound, never an unbounded wait.
                let r = try ProcessRunner.run("/bin/bash", ["-c", "set -euo pipefail\n\(script)\npwd > '\(cwdFile)'"],
                                              environment: environment, currentDirectory: cwd, timeout: 1_500)
                verbose("$ \(script)\n\(r)")
                XCTAssertFalse(r.timedOut, "step timed out: \(script)\n\(r)")
                XCTAssertEqual(r.exitCode, exitCode, "step failed: \(script)\n\(r)")
                if let expectOut { XCTAssertTrue(r.stdout.contains(expectOut), "step's output lacks \"\(expectOut)\": \(script)\n\(r)") }
                if let expectErr { XCTAssertTrue(r.stderr.contains(expectErr), "step's errors lack \"\(expectErr)\": \(script)\n\(r)") }
                if r.exitCode != exitCode { return }
                if exitCode == 0 { cwd = try String(contentsOfFile: cwdFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
            }
        }

        // The extension's output, written during the recording.
        let lines = try String(contentsOfFile: cwd + "/stats.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 30, "3 s at 30 fps: one line per frame delivered")
        var last = -1.0
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            let t = try XCTUnwrap(object["t"] as? Double, String(line))
            XCTAssertGreaterThanOrEqual(t, last, "frames in timeline order")
            last = t
            XCTAssertNotNil(object["luma"] as? Double)
        }
        let probe = try FFprobe.probe(cwd + "/recording.mp4")
        XCTAssertEqual(probe.video.count, 1, "the movie beside the extension: \(probe)")

        // The same example lives in Extensions/FrameStats.
        for (doc, repo) in [("Sources/frame-stats/FrameStatsHandler.swift", "FrameStatsHandler.swift"),
                            ("Sources/frame-stats/main.swift", "main.swift"), ("manifest.json", "manifest.json")] {
            let written = try String(contentsOfFile: cwd + "/" + doc, encoding: .utf8)
            let shipped = try String(contentsOfFile: packageRoot.appendingPathComponent("Extensions/FrameStats/" + repo).path, encoding: .utf8)
            XCTAssertEqual(written, shipped, "the tutorial's \(doc) and Extensions/FrameStats/\(repo) differ")
        }
    }
}

/// One step of the tutorial page.
enum TutorialStep {
    /// Write `content` to `path` (relative to the current directory).
    case file(path: String, content: String)
    /// Run `script` with bash; check its exit code and, optionally, what it prints.
    case run(script: String, expectOut: String?, expectErr: String?, exitCode: Int32)

    /// The steps: each `<!-- tutorial: … -->` marker and the fenced block after it.
    static func parse(_ page: String) -> [TutorialStep] {
        var steps: [TutorialStep] = []
        let lines = page.components(separatedBy: "\n")
        var i = 0
        while i < lines.count {
            let line = lines[i].trimmingCharacters(in: .whitespaces)
            i += 1
            guard line.hasPrefix("<!-- tutorial:"), line.hasSuffix("-->") else { continue }
            let marker = String(line.dropFirst("<!-- tutorial:".count).dropLast(3)).trimmingCharacters(in: .whitespaces)
            while i < lines.count, !lines[i].hasPrefix("```") { i += 1 }
            i += 1
            var body: [String] = []
            while i < lines.count, !lines[i].hasPrefix("```") { body.append(lines[i]); i += 1 }
            i += 1
            let text = body.joined(separator: "\n") + "\n"
            if marker.hasPrefix("file ") {
                steps.append(.file(path: String(marker.dropFirst(5)).trimmingCharacters(in: .whitespaces), content: text))
            } else if marker.hasPrefix("run") {
                steps.append(.run(script: text, expectOut: attribute("expect", in: marker), expectErr: attribute("stderr", in: marker),
                                  exitCode: Int32(attribute("exit", in: marker) ?? "0") ?? 0))
            }
        }
        return steps
    }

    /// `name="value"` or `name=value` in a marker.
    private static func attribute(_ name: String, in marker: String) -> String? {
        guard let range = marker.range(of: name + "=") else { return nil }
        let rest = marker[range.upperBound...]
        if rest.first == "\"" {
            let value = rest.dropFirst()
            return value.firstIndex(of: "\"").map { String(value[..<$0]) }
        }
        return String(rest.prefix { !$0.isWhitespace })
    }
}
