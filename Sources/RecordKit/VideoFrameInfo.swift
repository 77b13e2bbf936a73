/// What changed in a raw video frame, the equivalent of ScreenCaptureKit's `SCStreamFrameInfo`
/// (status `.complete` / `.idle` and `dirtyRects`): an extension can skip work for a frame
/// that repeats the previous picture, or redo only the rectangles that changed.
///
/// Rectangles are relative to the frame with index ``previousFrameIndex``. A handler that did
/// not receive that frame (its queue dropped it; the handler's statistics count drops) must treat
/// this frame as entirely changed.
public struct VideoFrameInfo: Sendable, Equatable {
    /// Index of the capture tick that produced this frame; increases from frame to frame.
    public let frameIndex: Int64
    /// Index of the frame the change is relative to (the frame delivered just before this one by
    /// capture), or nil for the first frame.
    public let previousFrameIndex: Int64?
    /// Whether any pixel differs from that previous frame. False: the very same pixels
    /// (repeated so a constant-frame-rate stream has every frame, or every half second in
    /// variable-frame-rate mode).
    public let isChanged: Bool
    /// The rectangles outside which the frame equals the previous one, in pixels of this frame
    /// (even-aligned, possibly overlapping). Nil: unknown, everything may have changed.
    /// Empty when ``isChanged`` is false.
    public let dirtyRects: [PixelRect]?

    /// Describes a frame's change.
    public init(frameIndex: Int64, previousFrameIndex: Int64?, isChanged: Bool, dirtyRects: [PixelRect]?) {
        self.frameIndex = frameIndex
        self.previousFrameIndex = previousFrameIndex
        self.isChanged = isChanged
        self.dirtyRects = isChanged ? dirtyRects : []
    }
}
