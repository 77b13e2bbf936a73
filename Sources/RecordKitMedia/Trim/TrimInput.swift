import CFFmpeg
import Glibc

/// One opened input movie (an owned `AVFormatContext`, closed on deinit), with its main video
/// stream and its audio streams found. The trimmer opens the input once per pass.
///
/// Not thread-safe; used by one trim at a time on the caller's thread.
final class TrimInput {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The index of the video stream that is cut (FFmpeg's "best" video stream).
    let videoIndex: Int
    /// The indices of every audio stream, in file order (all are kept).
    let audioIndices: [Int]
    let path: String

    init(path: String) throws(MovieTrimError) {
        var statBuffer = stat()
        guard stat(path, &statBuffer) == 0 else { throw .inputMissing(path: path) }
        guard statBuffer.st_mode & S_IFMT == S_IFREG else {
            throw .notAMovie(path: path, reason: "it is not a regular file")
        }
        var opened: UnsafeMutablePointer<AVFormatContext>? = nil
        let result = avformat_open_input(&opened, path, nil, nil)
        guard result >= 0, let context = opened else {
            throw .notAMovie(path: path, reason: "FFmpeg cannot read it (\(MediaError.describe(result)))")
        }
        self.context = context
        self.path = path
        let probed = avformat_find_stream_info(context, nil)
        let best = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        var audio: [Int] = []
        for index in 0..<Int(context.pointee.nb_streams) where context.pointee.streams[index]?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            audio.append(index)
        }
        self.audioIndices = audio
        self.videoIndex = Int(best)
        if probed < 0 { throw .notAMovie(path: path, reason: "its streams cannot be read (\(MediaError.describe(probed)))") }
        if best < 0 { throw .notAMovie(path: path, reason: "it has no video stream") }
    }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    var video: UnsafeMutablePointer<AVStream> { stream(videoIndex) }

    /// The container's name as FFmpeg calls it ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm").
    var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&owned)
    }
}
