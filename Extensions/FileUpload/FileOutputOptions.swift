import Glibc
import RecordKit
import RecordKitSupport

/// What the file handler writes, and where.
package struct FileOutputOptions: Sendable {
    /// The container format of the file.
    package enum Container: String, Sendable, Codable {
        /// MPEG-4 (`.mp4`): written fragmented while recording (so a crash leaves a playable
        /// file), then finished in place as a plain MP4 with its index last (or first, with
        /// ``FileOutputOptions/faststart``).
        case mp4
        /// Matroska (`.mkv`): written directly; playable at every moment.
        case mkv

        /// The usual file name extension.
        package var fileExtension: String { rawValue }
    }

    /// The output file, or nil for `Recording YYYY-MM-DD at HH.MM.SS.<ext>` in the videos
    /// directory (`$XDG_VIDEOS_DIR`, `XDG_VIDEOS_DIR` of `~/.config/user-dirs.dirs`, else `~/Videos`).
    /// A relative path is taken relative to the current directory.
    package var path: String?
    /// The container.
    package var container: Container
    /// Whether an existing file at ``path`` may be replaced.
    package var overwrite: Bool
    /// H.264 settings.
    package var video: VideoEncoderSettings
    /// AAC settings (both audio tracks).
    package var audio: AudioEncoderSettings
    /// Whether the file gets an application-audio track.
    package var includeAppAudio: Bool
    /// Whether the file gets a microphone track.
    package var includeMicAudio: Bool
    /// Whether the file records the video encode a stream of the same recording asks for
    /// (``HandlerInput/sharesVideoEncode``), as OBS's "same as stream": one encoder for both.
    package var sharesStreamEncode: Bool = true
    /// Whether an MP4 gets its index first (`--faststart`), for files published on the web that
    /// should play while they download. Costs a rewrite of the whole file at stop (time in
    /// proportion to its length, and free space for a second copy); without it the index is
    /// appended at the end and stopping takes the same short time for any length.
    package var faststart: Bool = false
    /// When the file is cut into parts by itself (`--split-every`, `--split-size`); the default
    /// only on request (`recordctl split`).
    package var split = SplitPolicy()
    /// Creates options; the defaults record an MP4 with H.264 and two AAC tracks into the videos directory.
    package init(path: String? = nil, container: Container = .mp4, overwrite: Bool = false,
                video: VideoEncoderSettings = .fileDefault, audio: AudioEncoderSettings = .standard,
                includeAppAudio: Bool = true, includeMicAudio: Bool = true) {
        self.path = path
        self.container = container
        self.overwrite = overwrite
        self.video = video
        self.audio = audio
        self.includeAppAudio = includeAppAudio
        self.includeMicAudio = includeMicAudio
    }

    /// The absolute path the file will have. Without ``path`` the name holds the current time,
    /// so two calls a second apart differ: resolve once and keep the result.
    package func resolvedPath() -> String {
        guard let path, !path.isEmpty else {
            return VideosDirectory.path() + "/" + OutputFileName.stamped("Recording", at: time(nil), extension: container.fileExtension)
        }
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") { return VideosDirectory.homeDirectory() + String(path.dropFirst()) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory == "/" ? "" : directory) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Checks that the file can be written, before anything is recorded, and leaves no file behind.
    ///
    /// Throws ``BroadcastError/Kind/outputFailed`` when the directory does not exist or the
    /// file exists without ``overwrite``, and ``BroadcastError/Kind/outputFailed`` when the
    /// directory or file cannot be written (checked with `access(W_OK)` and by creating and
    /// removing the file). Without ``path``, a missing default videos directory is created.
    package func validate() throws(BroadcastError) {
        try OutputPathCheck(path: resolvedPath(), overwrite: overwrite, createDirectory: path == nil || path == "").run()
    }
}
