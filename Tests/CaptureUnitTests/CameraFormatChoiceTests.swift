import RecordKitCapture
import XCTest

/// ``CameraFormatOffer/best(of:framesPerSecond:decodesMJPEG:)``: what a camera is asked for,
/// among offers shaped as USB cameras list them (YUY2 at every size but fast only at small ones,
/// MJPEG fast at every size).
final class CameraFormatChoiceTests: XCTestCase {
    /// A typical UVC webcam: YUY2 640x480 at 30, 1280x720 at 10, 1920x1080 at 5; MJPEG at 30 at each.
    private let webcam: [CameraFormatOffer] = [
        .init(.yuy2, width: 640, height: 480, maxFramesPerSecond: 30), .init(.yuy2, width: 1280, height: 720, maxFramesPerSecond: 10),
        .init(.yuy2, width: 1920, height: 1080, maxFramesPerSecond: 5), .init(.mjpeg, width: 640, height: 480, maxFramesPerSecond: 30),
        .init(.mjpeg, width: 1280, height: 720, maxFramesPerSecond: 30), .init(.mjpeg, width: 1920, height: 1080, maxFramesPerSecond: 30),
    ]

    /// At 30 fps the webcam's 1080p comes as MJPEG (its YUY2 1080p gives 5 fps).
    func testTheRecordingsRateComesFirstSoHighResolutionIsMJPEG() {
        XCTAssertEqual(CameraFormatOffer.best(of: webcam, framesPerSecond: 30, decodesMJPEG: true),
                       .init(.mjpeg, width: 1920, height: 1080, maxFramesPerSecond: 30))
    }

    /// Without an MJPEG decoder the largest size raw reaches at 30 fps: YUY2 640x480.
    func testWithoutADecoderOnlyRawFormatsAreAskedFor() {
        XCTAssertEqual(CameraFormatOffer.best(of: webcam, framesPerSecond: 30, decodesMJPEG: false),
                       .init(.yuy2, width: 640, height: 480, maxFramesPerSecond: 30))
        XCTAssertNil(CameraFormatOffer.best(of: webcam.filter { $0.encoding == .mjpeg }, framesPerSecond: 30, decodesMJPEG: false),
                     "an MJPEG-only camera without a decoder: nothing to ask for")
    }

    /// At 5 fps YUY2 reaches 1080p too, and raw wins over MJPEG at the same size.
    func testRawIsPreferredOverMJPEGAtTheChosenSize() {
        XCTAssertEqual(CameraFormatOffer.best(of: webcam, framesPerSecond: 5, decodesMJPEG: true),
                       .init(.yuy2, width: 1920, height: 1080, maxFramesPerSecond: 5))
        let both: [CameraFormatOffer] = [.init(.mjpeg, width: 640, height: 480, maxFramesPerSecond: 30),
                                         .init(.i420, width: 640, height: 480, maxFramesPerSecond: 30),
                                         .init(.nv12, width: 640, height: 480, maxFramesPerSecond: 30)]
        XCTAssertEqual(CameraFormatOffer.best(of: both, framesPerSecond: 30, decodesMJPEG: true)?.encoding, .nv12, "NV12 before I420 and MJPEG")
    }

    /// Sizes beyond 1920x1080 are left for smaller ones; a camera with only larger ones gets its smallest.
    func testTheLargestSizeUpTo1080pWins() {
        let big: [CameraFormatOffer] = [.init(.mjpeg, width: 3840, height: 2160, maxFramesPerSecond: 30),
                                        .init(.mjpeg, width: 2560, height: 1440, maxFramesPerSecond: 30),
                                        .init(.mjpeg, width: 1280, height: 720, maxFramesPerSecond: 30)]
        XCTAssertEqual(CameraFormatOffer.best(of: big, framesPerSecond: 30, decodesMJPEG: true)?.width, 1280)
        XCTAssertEqual(CameraFormatOffer.best(of: Array(big.prefix(2)), framesPerSecond: 30, decodesMJPEG: true)?.width, 2560)
    }

    /// A camera slower than the recording everywhere: the fastest it has; an offer without a rate counts as fast enough.
    func testASlowCameraGivesItsFastestAndUnknownRatesCount() {
        let slow: [CameraFormatOffer] = [.init(.yuy2, width: 1280, height: 720, maxFramesPerSecond: 10),
                                         .init(.yuy2, width: 640, height: 480, maxFramesPerSecond: 15)]
        XCTAssertEqual(CameraFormatOffer.best(of: slow, framesPerSecond: 30, decodesMJPEG: true)?.width, 640)
        let unknown: [CameraFormatOffer] = [.init(.bgrx, width: 1280, height: 720, maxFramesPerSecond: 0)] + slow
        XCTAssertEqual(CameraFormatOffer.best(of: unknown, framesPerSecond: 30, decodesMJPEG: true), unknown[0])
    }

    /// YUV with an odd width (or a 4:2:0 odd height) cannot be converted; nothing usable gives nil.
    func testOddYUVSizesAreLeftOut() {
        let odd: [CameraFormatOffer] = [.init(.yuy2, width: 641, height: 480, maxFramesPerSecond: 30),
                                        .init(.nv12, width: 640, height: 481, maxFramesPerSecond: 30),
                                        .init(.bgrx, width: 320, height: 241, maxFramesPerSecond: 30)]
        XCTAssertEqual(CameraFormatOffer.best(of: odd, framesPerSecond: 30, decodesMJPEG: true), odd[2])
        XCTAssertNil(CameraFormatOffer.best(of: [], framesPerSecond: 30, decodesMJPEG: true))
        XCTAssertEqual(odd[2].description, "BGRx 320x241 30 fps")
    }
}
