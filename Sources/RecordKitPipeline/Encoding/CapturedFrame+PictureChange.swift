import RecordKitCapture
import RecordKitMedia

extension CapturedFrame {
    /// How this frame differs from the frame of sequence `previous` (the last one a consumer
    /// converted): its dirty rows when it directly follows that frame, nothing when it repeats
    /// it, everything otherwise (a frame was dropped or cut in between, or damage is unknown).
    func pictureChange(after previous: Int64?) -> PictureChange {
        guard let previous, previousSequence == previous else { return .all }
        if !isChanged { return .none }
        guard let dirtyRects else { return .all }
        return .rows(dirtyRects.map { $0.y..<($0.y + $0.height) })
    }
}
