extension MovieTrimmer {
    /// How the video was cut.
    package enum Method: String, Sendable, Equatable {
        /// The start was a key frame (and the end closed): every packet was copied unchanged.
        case remux
        /// Frames from the cut to the next key frame (and maybe the last few) were re-encoded,
        /// the rest copied.
        case smartCut
        /// The codec cannot be re-encoded at a cut: the output starts at the key frame before
        /// the asked start (and may end a few frames after the asked end). ``Report/note`` says why.
        case keyFrameCut
    }

    /// What a trim did. Times in seconds.
    package struct Report: Sendable, Equatable, CustomStringConvertible {
        /// How the video was cut.
        package var method: Method
        /// Frames re-encoded from the cut up to the next key frame (0 for a remux).
        package var reencodedFrames: Int
        /// Frames re-encoded at the end, because the end fell between a B-frame and its
        /// reference (0 when the end was closed).
        package var reencodedTailFrames: Int
        /// Video packets copied unchanged.
        package var copiedVideoPackets: Int
        /// Audio streams written (every one of the input's).
        package var audioTracks: Int
        /// Audio packets copied, over all audio streams.
        package var audioPackets: Int
        /// Chapters written (those overlapping the kept span).
        package var chapters: Int
        /// The output video's duration: from its first frame's start to its last frame's end.
        package var duration: Double
        /// Where the output's first frame was in the input, in seconds from the input's first
        /// frame; in the output it is at presentation time 0.
        package var firstFrameTime: Double
        /// Why the cut is not where asked (``Method/keyFrameCut``), or nil.
        package var note: String?

        /// One line, e.g. `smart cut: re-encoded 15 frames to the next key frame, copied 60 video packets; 2.500 s from 1.500 s`.
        package var description: String {
            let what: String
            switch method {
            case .remux: what = "remux only: copied \(copiedVideoPackets) video packets"
            case .smartCut:
                what = "smart cut: re-encoded \(reencodedFrames) frames to the next key frame"
                    + (reencodedTailFrames > 0 ? " and \(reencodedTailFrames) at the end" : "")
                    + ", copied \(copiedVideoPackets) video packets"
            case .keyFrameCut: what = "key-frame cut: copied \(copiedVideoPackets) video packets (\(note ?? ""))"
            }
            return what + String(format: ", %d audio track(s), %d chapter(s); %.3f s from %.3f s", audioTracks, chapters, duration, firstFrameTime)
        }
    }
}
