/// The arguments of the commands other than `start` (docs/PROTOCOL.md): each command reads the
/// members it documents and ignores the others; every member is optional.
package struct CommandOptions: Codable, Sendable, Equatable {
    /// `save-replay`: seconds to save from the end of the buffer (nil: all of it).
    package var seconds: Double?
    /// `save-replay`: the file to write, absolute (nil: a timestamped name in the videos directory).
    package var output: String?
    /// `save-replay`: replace `output` if it exists.
    package var overwrite: Bool?

    /// `mark`: the marker's title (nil or empty: "Chapter N").
    package var title: String?

    /// `upload`: the files to upload (absolute paths).
    package var files: [String]?
    /// `upload`, `save-replay`: where and how to upload.
    package var upload: UploadOptions?
    /// `upload-pause`, `upload-resume`, `upload-cancel`: the upload.
    package var uploadId: String?

    /// `audio-switch`: the track, "mic" or "app".
    package var track: String?
    /// `audio-switch`: true to record the track's source, false for silence. `camera-switch`:
    /// true to draw the camera's corner, false to hide it.
    package var enabled: Bool?

    /// `screenshot`: "png" (default), "jpg" or "jpeg".
    package var format: String?
    /// `screenshot`: the image fits inside `width`x`height` (either may be nil), aspect kept.
    package var width: Int?
    /// `screenshot`: see ``width``.
    package var height: Int?
    /// `screenshot`: JPEG quality 0...100 (nil: 90).
    package var quality: Int?

    /// `stop`, `discard`, `pause`, `resume`: the output (its name in status, e.g. `file-2`) to
    /// act on alone, leaving the capture and its other outputs running; nil: the whole recording.
    package var outputId: String?

    /// Options with every member unset.
    package init(seconds: Double? = nil, output: String? = nil, overwrite: Bool? = nil, title: String? = nil) {
        self.title = title
        self.seconds = seconds
        self.output = output
        self.overwrite = overwrite
    }
}
