/// How a frame handed to ``VideoEncoder`` differs from the one handed to it just before, so the
/// encoder converts only what changed into its persistent yuv420p picture.
public enum PictureChange: Sendable, Equatable {
    /// Unknown or everything: convert the whole frame.
    case all
    /// The same picture as the previous frame: convert nothing, encode the kept picture again.
    case none
    /// Only these pixel rows (half-open ranges, in input rows) changed.
    case rows([Range<Int>])
}
