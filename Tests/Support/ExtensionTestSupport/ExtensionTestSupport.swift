import Foundation
import Glibc
import RecordKit
import RecordKitExtensions
import Synchronization
import XCTest

/// Helpers for the extension tests: extension directories made on the fly around the built
/// fixture programs, a context that records what a handler told it, synthetic samples.
package enum ExtensionFixtures {
    /// The directory of this build's products (the test bundle runs from it).
    package static var productsDirectory: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The package root.
    package static let packageRoot = URL(fileURLWithPath: #filePath)  // Tests/Support/ExtensionTestSupport/this file
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The built `rk-test-extension` (fails the test when it was not built).
    package static func fixtureBinary() throws -> String {
        let path = productsDirectory + "/rk-test-extension"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XCTSkip("never: build first (swift build builds \(path))").asFailure
        }
        return path
    }

    /// A fresh temporary directory, removed when the test ends.
    package static func temporaryDirectory(_ test: XCTestCase) throws -> String {
        let dir = NSTemporaryDirectory() + "rk-ext-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    /// Makes `root/name/` with `manifest` (JSON text) and, when given, `program` linked in as
    /// `bin/<name>`; returns the directory.
    @discardableResult
    package static func makeExtension(in root: String, name: String, manifest: String, program: String? = nil) throws -> String {
        let dir = root + "/" + name
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try manifest.write(toFile: dir + "/manifest.json", atomically: true, encoding: .utf8)
        if let program { try FileManager.default.createSymbolicLink(atPath: dir + "/bin/" + name, withDestinationPath: program) }
        return dir
    }

    /// A manifest for the fixture program.
    package static func fixtureManifest(name: String, input: String = #"{"video": {"format": "raw", "pixelFormat": "bgr0"}}"#,
                                limits: String = #"{"memoryMB": 64, "callTimeoutMs": 500, "lifecycleTimeoutMs": 5000}"#) -> String {
        """
        {
          "name": "\(name)",
          "version": "1.0.0",
          "entry": {"executable": "bin/\(name)"},
          "input": \(input),
          "setup": {
            "mode": {"type": "string", "default": "log"},
            "after": {"type": "int", "default": 10},
            "delayMs": {"type": "int", "default": 0},
            "log": {"type": "string", "default": ""}
          },
          "limits": \(limits)
        }
        """
    }
}

extension XCTSkip {
    /// Turns a skip into a plain error: these tests never skip.
    package var asFailure: Error { NSError(domain: "RecordKitTests", code: 1, userInfo: [NSLocalizedDescriptionKey: message ?? "missing fixture"]) }
}

/// A ``BroadcastContext`` that records what the handler tells it.
package final class RecordingContext: BroadcastContext, @unchecked Sendable {
    private let state = Mutex<(errors: [BroadcastError], info: [String: String])>(([], [:]))
    package let formats: [SampleBufferType: FormatDescription]
    package let discarding: Bool
    package let workingDirectory: String? = nil
    private let ended = DispatchSemaphore(value: 0)

    /// A context announcing `streams`: raw 640x480 BGR0 video and standard PCM audio.
    package init(streams: Set<SampleBufferType> = [.video], discarding: Bool = false) {
        self.formats = Dictionary(uniqueKeysWithValues: streams.map { type in
            (type, type == .video ? FormatDescription.video(VideoFormat(width: 640, height: 480, pixelFormat: .bgr0)) : .audio(.standard))
        })
        self.discarding = discarding
    }

    package var streams: Set<SampleBufferType> { Set(formats.keys) }

    package func finishBroadcast(with error: BroadcastError) {
        state.withLock { $0.errors.append(error) }
        ended.signal()
    }

    package func publish(serviceInfo: [String: String]) { state.withLock { $0.info.merge(serviceInfo) { _, new in new } } }

    package var isDiscarding: Bool { discarding }
    package var errors: [BroadcastError] { state.withLock { $0.errors } }
    package var serviceInfo: [String: String] { state.withLock { $0.info } }

    /// Waits up to `seconds` for `finishBroadcast`.
    package func waitForEnd(seconds: Double) -> Bool { ended.wait(timeout: .now() + seconds) == .success }
}

/// Synthetic samples.
package enum SyntheticSamples {
    /// A BGR0 frame of `width` × `height`, every pixel `value`, at frame `index` of 30 fps.
    package static func frame(index: Int, width: Int = 320, height: Int = 180, value: UInt8 = 0x40) -> SampleBuffer {
        let bytes = [UInt8](repeating: value, count: width * height * 4)
        return SampleBuffer(type: .video, presentationTime: MediaTime(value: Int64(index), timescale: 30),
                            duration: MediaTime(value: 1, timescale: 30),
                            formatDescription: .video(VideoFormat(width: width, height: height, pixelFormat: .bgr0)),
                            payload: .pixels(PixelData(buffer: MediaBuffer(copying: bytes), planeOffsets: [0], bytesPerRow: [width * 4])))
    }

    /// A block of 1024 stereo float frames of app audio at block `index`.
    package static func audio(index: Int) -> SampleBuffer {
        let bytes = [UInt8](repeating: 0, count: 1024 * 8)
        return SampleBuffer(type: .audioApp, presentationTime: MediaTime(value: Int64(index * 1024), timescale: 48_000),
                            duration: MediaTime(value: 1024, timescale: 48_000), formatDescription: .audio(.standard),
                            payload: .pcm(PCMData(buffer: MediaBuffer(copying: bytes), frameCount: 1024, startFrame: Int64(index * 1024))))
    }
}

/// A call log written by the fixture (`mode=log`), checked against the serial contract.
package struct FixtureCallLog {
    package let lines: [String]

    package init(path: String) throws {
        lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The calls, in order, from their `enter` lines ("started", "sample video", "paused", …).
    package var calls: [String] {
        lines.filter { $0.hasPrefix("enter ") }.map { line in
            let words = line.split(separator: " ").dropFirst()
            return words.first == "sample" ? words.prefix(2).joined(separator: " ") : String(words.first ?? "")
        }
    }

    /// Every violation of the contract: overlapping calls, samples of one type going back in
    /// time, started not first, finished not exactly once and last.
    package var violations: [String] {
        var problems: [String] = []
        var inCall = false
        var last: [String: Int64] = [:]
        for (i, line) in lines.enumerated() {
            let words = line.split(separator: " ").map(String.init)
            if words.first == "enter" {
                if inCall { problems.append("line \(i + 1): \(line) while another call runs") }
                inCall = true
                if words.count >= 4, words[1] == "sample", let t = Int64(words[3]) {
                    if let prev = last[words[2]], t < prev { problems.append("line \(i + 1): \(words[2]) went back from \(prev) to \(t)") }
                    last[words[2]] = t
                }
            } else if words.first == "exit" {
                if !inCall { problems.append("line \(i + 1): \(line) without its enter") }
                inCall = false
            }
        }
        let calls = self.calls
        if calls.first != "started" { problems.append("the first call is \(calls.first ?? "nothing"), not started") }
        if calls.last != "finished" { problems.append("the last call is \(calls.last ?? "nothing"), not finished") }
        if calls.filter({ $0 == "finished" }).count != 1 { problems.append("finished came \(calls.filter { $0 == "finished" }.count) times") }
        return problems
    }
}
