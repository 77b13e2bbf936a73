import Foundation
import Glibc
import RecordKit
import RecordKitExtensions
import Synchronization
import ExtensionTestSupport
import XCTest

/// The host side of out-of-process extensions, driven directly (no recording): the protocol
/// round trip, the serial calls, and each kind of misbehaviour ended with the right reason.
final class ExtensionProcessTests: XCTestCase {
    private func handler(_ name: String, mode: String? = nil, input: String? = nil,
                         limits: String? = nil) throws -> (ExtensionProcessHandler, root: String) {
        let root = try ExtensionFixtures.temporaryDirectory(self)
        var manifestText = ExtensionFixtures.fixtureManifest(name: name)
        if let input { manifestText = ExtensionFixtures.fixtureManifest(name: name, input: input) }
        if let limits { manifestText = ExtensionFixtures.fixtureManifest(name: name, limits: limits) }
        let dir = try ExtensionFixtures.makeExtension(in: root, name: name, manifest: manifestText,
                                                      program: try ExtensionFixtures.fixtureBinary())
        let manifest = try ExtensionManifest.parse(Array(manifestText.utf8), file: "test")
        return (ExtensionProcessHandler(manifest: manifest, executable: dir + "/bin/" + name, directory: dir), root)
    }

    func testCallsReachTheExtensionSeriallyAndInOrder() throws {
        let (h, root) = try handler("logger")
        let log = root + "/calls.log"
        let context = RecordingContext(streams: [.video])
        try h.broadcastStarted(setupInfo: SetupInfo(["mode": "log", "log": log]), context: context)
        for i in 0..<20 { h.processSampleBuffer(SyntheticSamples.frame(index: i), with: .video) }
        h.broadcastPaused()
        h.broadcastResumed()
        for i in 20..<30 { h.processSampleBuffer(SyntheticSamples.frame(index: i), with: .video) }
        h.broadcastFinished()
        XCTAssertEqual(context.errors, [])
        let calls = try FixtureCallLog(path: log)
        XCTAssertEqual(calls.violations, [])
        XCTAssertEqual(calls.calls, ["started"] + Array(repeating: "sample video", count: 20) + ["paused", "resumed"]
                       + Array(repeating: "sample video", count: 10) + ["finished"])
        XCTAssertEqual(context.serviceInfo["mode"], "log", "publish(serviceInfo:) crosses the boundary")
        XCTAssertEqual(context.serviceInfo["delivered"], "30")
        XCTAssertEqual(context.serviceInfo["bytesCopied"], String(30 * 320 * 180 * 4))
    }

    func testRefusalInBroadcastStartedIsThrownWithTheExtensionsMessage() throws {
        let (h, _) = try handler("refuser")
        XCTAssertThrowsError(try h.broadcastStarted(setupInfo: SetupInfo(["mode": "refuse"]), context: RecordingContext())) { error in
            let e = error as? BroadcastError
            XCTAssertEqual(e?.kind, .invalidSetup)
            XCTAssertEqual(e?.message, "the fixture refuses to start (mode=refuse)")
        }
    }

    func testACrashEndsTheBroadcastWithTheSignal() throws {
        try assertEnded(mode: "crash", reason: "crashed with signal 11 (SIGSEGV) in processSampleBuffer")
    }

    func testAHangEndsTheBroadcastAfterTheCallTimeout() throws {
        let start = Date()
        try assertEnded(mode: "hang", reason: "timed out after 500 ms in processSampleBuffer")
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testMemoryOverTheLimitEndsTheBroadcast() throws {
        try assertEnded(mode: "hungry", reason: "exceeded its memory limit of 64 MB", after: 1, delayMs: 20)
    }

    func testGarbageOnTheSocketEndsTheBroadcast() throws {
        try assertEnded(mode: "garbage", reason: "sent a malformed message")
    }

    func testAnExitBeforeFinishedIsReported() throws {
        try assertEnded(mode: "exit", reason: "exited with status 3 in processSampleBuffer")
    }

    /// Frames in System V memory (as the capture pool's) are lent, not copied, and a dead
    /// extension gives them back at once: the recording needs its pool.
    func testLentFramesAreNotCopiedAndAFailedExtensionLetsGoOfThemAtOnce() throws {
        let size = 320 * 180 * 4
        let segment = shmget(IPC_PRIVATE, size, IPC_CREAT | 0o600)
        XCTAssertGreaterThanOrEqual(segment, 0)
        let base = try XCTUnwrap(shmat(segment, nil, 0))
        shmctl(segment, IPC_RMID, nil)
        defer { shmdt(base) }
        memset(base, 0x40, size)
        let released = Atomic<Int>(0)
        func lendable(_ index: Int) -> SampleBuffer {
            let buffer = MediaBuffer(bytes: UnsafeRawBufferPointer(start: base, count: size),
                                     sharedLocation: SharedMemoryLocation(systemVSegment: segment, segmentSize: size, offset: 0)) {
                released.add(1, ordering: .relaxed)
            }
            return SampleBuffer(type: .video, presentationTime: MediaTime(value: Int64(index), timescale: 30), duration: MediaTime(value: 1, timescale: 30),
                                formatDescription: .video(VideoFormat(width: 320, height: 180, pixelFormat: .bgr0)),
                                payload: .pixels(PixelData(buffer: buffer, planeOffsets: [0], bytesPerRow: [320 * 4])))
        }
        let (h, _) = try handler("lender")
        let context = RecordingContext()
        try h.broadcastStarted(setupInfo: SetupInfo(["mode": "hang", "after": "3"]), context: context)
        h.processSampleBuffer(lendable(0), with: .video)
        h.processSampleBuffer(lendable(1), with: .video)
        XCTAssertEqual(released.load(ordering: .relaxed), 2, "released in each call's done")
        h.processSampleBuffer(lendable(2), with: .video)  // hangs: killed after 500 ms
        XCTAssertEqual(context.errors.first?.message.contains("timed out after 500 ms"), true, "\(context.errors)")
        XCTAssertEqual(released.load(ordering: .relaxed), 3, "the dead extension's frame is let go before broadcastFinished")
        h.broadcastFinished()
        XCTAssertEqual(context.serviceInfo["framesLent"], "3")
        XCTAssertEqual(context.serviceInfo["bytesCopied"], "0", "no frame was copied")
    }

    private func assertEnded(mode: String, reason: String, after: Int = 5, delayMs: Int = 0,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let (h, _) = try handler(mode)
        let context = RecordingContext()
        try h.broadcastStarted(setupInfo: SetupInfo(["mode": mode, "after": String(after), "delayMs": String(delayMs)]), context: context)
        var i = 0
        while context.errors.isEmpty && i < 400 {
            h.processSampleBuffer(SyntheticSamples.frame(index: i), with: .video)
            i += 1
        }
        XCTAssertTrue(context.waitForEnd(seconds: 3), "the broadcast was not ended", file: file, line: line)
        h.broadcastFinished()
        XCTAssertEqual(context.errors.count, 1, "\(context.errors)", file: file, line: line)
        let message = context.errors.first?.message ?? ""
        XCTAssertTrue(message.contains(reason), "\"\(message)\" does not say \"\(reason)\"", file: file, line: line)
        XCTAssertTrue(message.hasPrefix("extension process "), message, file: file, line: line)
    }
}
