import Foundation
import XCTest

/// What the camera tests share: the Wayland rig with its test camera running
/// (scripts/wayland-rig.sh `camera-start`: the PipeWire node rk-test-camera, SMPTE bars 320x240
/// at 30 fps; stopped at teardown) and the check that a picture shows its bars.
class CameraTestCase: EndToEndTestCase {
    var wayland: WaylandRig!
    /// The top two thirds of videotestsrc's SMPTE bars (full intensity in its BGRx output, as
    /// decoded): white, yellow, cyan, green, magenta, red, blue.
    static let bars = [RGB(r: 255, g: 255, b: 255), RGB(r: 255, g: 255, b: 0), RGB(r: 0, g: 255, b: 255),
                       RGB(r: 0, g: 255, b: 0), RGB(r: 255, g: 0, b: 255), RGB(r: 255, g: 0, b: 0), RGB(r: 0, g: 0, b: 255)]

    override func setUpWithError() throws {
        try super.setUpWithError()
        wayland = try WaylandRig.require()
        try wayland.rig(["camera-start"])
        addTeardownBlock { [wayland] in try? wayland?.rig(["camera-stop"]) }
    }

    /// Asserts the seven bars lie in `corner` of `frame` (centre of each bar, upper half).
    func assertBars(_ frame: RGBFrame, in corner: PixelRect, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let barWidth = Double(corner.width) / 7
        for (i, colour) in Self.bars.enumerated() {
            let x = corner.x + Int((Double(i) + 0.5) * barWidth) - 3
            let y = corner.y + corner.height / 3 - 3
            assertColour(frame, PixelRect(x: x, y: y, width: 6, height: 6), is: colour, tolerance: 40, "\(what): bar \(i)", file: file, line: line)
        }
    }
}
