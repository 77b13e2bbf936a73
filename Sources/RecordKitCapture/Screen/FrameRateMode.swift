/// What a ``ScreenCapture`` delivers for a tick on which nothing on screen changed.
package enum FrameRateMode: String, Sendable, Equatable, CaseIterable {
    /// Every tick delivers a frame: an unchanged tick repeats the previous picture (same buffer,
    /// ``CapturedFrame/isChanged`` false, nothing grabbed), so the file has every frame slot, as
    /// editors expect.
    case constant
    /// An unchanged tick delivers nothing, except that a frame (a repeat) goes out every half
    /// second, so seeking and late joiners of a live stream find recent pictures, and consumers
    /// that interleave video with audio (files, streams) never wait long for the next frame.
    case variable
}
