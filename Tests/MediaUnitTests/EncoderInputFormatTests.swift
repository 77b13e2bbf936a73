@testable import RecordKitMedia
import RecordKit
import XCTest

/// Hardware encoders told the truth: encoders that cannot take yuv420p in
/// system memory are refused, before anything opens, for that reason.
final class EncoderInputFormatTests: XCTestCase {
    func testVAAPIAndQSVAreRefusedForTheirInputNotForAMissingDevice() throws {
        let vaapi = try XCTUnwrap(EncoderInputFormat.refusal(for: "h264_vaapi"))
        XCTAssertTrue(vaapi.contains("hardware device's memory (vaapi)"), vaapi)
        XCTAssertTrue(vaapi.contains("yuv420p pictures in system memory"), vaapi)
        XCTAssertFalse(vaapi.contains("renderD128"), "does not blame a missing device: \(vaapi)")
        let qsv = try XCTUnwrap(EncoderInputFormat.refusal(for: "h264_qsv"))
        XCTAssertTrue(qsv.contains("takes only nv12, p010le, qsv pictures"), qsv)

        XCTAssertThrowsError(try EncoderCheck.check(video: VideoEncoderSettings(encoderName: "hevc_vaapi"), audio: nil)) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("cannot use hevc_vaapi takes only"), "\(error)")
        }
    }

    func testEncodersThatTakeYUV420PAreLeftToOpen() {
        XCTAssertNil(EncoderInputFormat.refusal(for: "libx264"))
        XCTAssertNil(EncoderInputFormat.refusal(for: "h264_nvenc"), "takes yuv420p: opening it tells whether a device is there")
        XCTAssertNil(EncoderInputFormat.refusal(for: "no_such_encoder"), "opening it says it does not exist")
    }
}
