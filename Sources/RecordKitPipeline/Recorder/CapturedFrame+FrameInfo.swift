import RecordKit
import RecordKitCapture

extension CapturedFrame {
    /// The SDK's description of this frame's change, for raw-frame handlers.
    var frameInfo: VideoFrameInfo {
        VideoFrameInfo(frameIndex: sequence, previousFrameIndex: previousSequence, isChanged: isChanged,
                       dirtyRects: dirtyRects)
    }
}
