import Glibc
import RecordKit
@testable import RecordKitCapture
import XCTest

/// ``VideoSourceRegistry`` and ``AudioSourceRegistry``: sources chosen by name, the portal picked
/// by itself in a Wayland session without X, a clear error for a name nobody registered.
final class SourceRegistryTests: XCTestCase {
    /// A source that records nothing: only what the registry hands back is checked.
    private final class NamedSource: VideoSource, @unchecked Sendable {
        let name: String
        init(_ name: String) { self.name = name }
        var width: Int { 2 }
        var height: Int { 2 }
        var windowID: UInt? { nil }
        var statistics: ScreenCaptureStatistics { ScreenCaptureStatistics() }
        var onWindowGone: (@Sendable () -> Void)?
        var onFailure: (@Sendable (CaptureError) -> Void)?
        func start(deliver: @escaping @Sendable (CapturedFrame) -> Void) {}
        func stop() {}
    }

    private var saved: [String: String?] = [:]

    override func setUp() {
        super.setUp()
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] { saved[name] = getenv(name).map { String(cString: $0) } }
        VideoSourceRegistry.register("registry-test") { (_: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource in
            NamedSource("registry-test")
        }
    }

    override func tearDown() {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        super.tearDown()
    }

    private func configuration(source: String? = nil, display: String? = nil) -> ScreenCaptureConfiguration {
        var c = ScreenCaptureConfiguration(display: display)
        c.source = source
        return c
    }

    func testANamedSourceIsOpenedByItsName() throws {
        let source = try VideoSourceRegistry.open(configuration(source: "registry-test"))
        XCTAssertEqual((source as? NamedSource)?.name, "registry-test")
        XCTAssertTrue(VideoSourceRegistry.names.contains("x11"))
        XCTAssertTrue(VideoSourceRegistry.names.contains("registry-test"))
    }

    func testAnUnknownNameIsABadArgumentThatListsTheSources() {
        XCTAssertThrowsError(try VideoSourceRegistry.open(configuration(source: "no-such-source"))) { error in
            let e = error as? CaptureError
            XCTAssertEqual(e?.kind, .unknownSource)
            XCTAssertTrue(e?.message.contains("x11") == true, e?.message ?? "")
        }
    }

    func testTheSessionChoosesWhenNoSourceIsNamed() {
        VideoSourceRegistry.register("portal") { (_: ScreenCaptureConfiguration) throws(CaptureError) -> any VideoSource in NamedSource("portal") }
        setenv("WAYLAND_DISPLAY", "wayland-1", 1)
        unsetenv("DISPLAY")
        XCTAssertEqual(VideoSourceRegistry.resolvedName(for: configuration()), "portal", "Wayland without X")
        XCTAssertEqual(VideoSourceRegistry.resolvedName(for: configuration(display: ":5")), "x11", "a display named")
        setenv("DISPLAY", ":0", 1)
        XCTAssertEqual(VideoSourceRegistry.resolvedName(for: configuration()), "x11", "XWayland is there")
        unsetenv("WAYLAND_DISPLAY")
        unsetenv("DISPLAY")
        XCTAssertEqual(VideoSourceRegistry.resolvedName(for: configuration()), "x11", "no session at all: X11 says what is missing")
        XCTAssertEqual(VideoSourceRegistry.resolvedName(for: configuration(source: "portal")), "portal", "asked for")
    }

    func testTheDefaultAudioSourceWithNoTrackOpensNothing() throws {
        var warnings: [String] = []
        let audio = AudioSourceRegistry.open(AudioSourceRequest(tracks: [], server: "unix:/nonexistent", requireAudio: true)) { warnings.append($0) }
        XCTAssertEqual(try audio.tracks(), [])
        XCTAssertTrue(warnings.isEmpty)
        audio.close()
    }

    func testAMissingAudioServerIsAWarningUnlessAudioIsRequired() {
        let request = { (required: Bool) in
            AudioSourceRequest(tracks: [(.audioMic, .defaultSource)], server: "unix:/nonexistent/pulse.sock", requireAudio: required)
        }
        var warnings: [String] = []
        let optional = AudioSourceRegistry.open(request(false)) { warnings.append($0) }
        XCTAssertEqual(try optional.tracks(), [])
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        optional.close()
        let required = AudioSourceRegistry.open(request(true)) { _ in }
        XCTAssertThrowsError(try required.tracks()) { XCTAssertEqual(($0 as? CaptureError)?.kind, .noAudioServer) }
        required.close()
    }
}
