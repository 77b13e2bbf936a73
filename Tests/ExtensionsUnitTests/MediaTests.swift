import FileUploadExtension
import Foundation
import RecordKit
import RecordKitMedia
import MediaTestSupport
import XCTest

/// The media layer and the file handler, end to end on synthetic input, checked with ffprobe
/// and ffmpeg: what a recording produces, not how.
final class MediaTests: XCTestCase {
    private var scratch: MediaScratchDirectory!

    override func setUpWithError() throws { scratch = try MediaScratchDirectory() }
    override func tearDown() { scratch.remove() }

    // MARK: Encoders

    func testVideoEncoderEmitsAVCCPacketsWithAnAVCCHeader() throws {
        let recording = try SyntheticRecording(seconds: 1)
        let format = recording.videoFormat
        XCTAssertEqual(format.codec, .h264)
        XCTAssertEqual(format.timescale, 30)
        XCTAssertEqual([format.width, format.height, format.frameRate], [640, 480, 30])
        XCTAssertEqual(format.extradata.first, 1, "extradata is an avcC record")
        XCTAssertEqual(format.extradata.count > 8 ? format.extradata[4] & 3 : 0, 3, "4-byte NAL lengths")
        let video = recording.samples(of: .video)
        XCTAssertEqual(video.count, 30)
        guard case .packet(let first) = video.first?.payload else { return XCTFail("no video packet") }
        XCTAssertTrue(first.isKeyFrame, "the stream starts with a key frame")
        var lastDts = Int64.min
        var presentations: [Int64] = []
        for sample in video {
            guard case .packet(let packet) = sample.payload else { return XCTFail("not a packet") }
            XCTAssertEqual(packet.encoderID, "test-video")
            XCTAssertGreaterThan(packet.decodeTime.value, lastDts, "decode times increase")
            lastDts = packet.decodeTime.value
            presentations.append(sample.presentationTime.value)
            XCTAssertLessThanOrEqual(packet.decodeTime, sample.presentationTime)
            // Every byte is covered by length-prefixed NAL units.
            let bytes = [UInt8](packet.data.bytes)
            var offset = 0
            while offset + 4 <= bytes.count {
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                offset += 4 + length
            }
            XCTAssertEqual(offset, bytes.count, "packet at \(sample.presentationTime) is AVCC")
        }
        XCTAssertEqual(presentations.sorted(), Array(0..<30), "every frame comes out once, at its pts")
    }

    func testVideoEncoderCropsOddSizesScalesAndFollowsResizes() throws {
        // Odd capture size: cropped to even, not resampled.
        let odd = try VideoEncoder(settings: .fileDefault, inputWidth: 641, inputHeight: 481, frameRate: 30, id: "odd")
        XCTAssertEqual([odd.format.width, odd.format.height], [640, 480])
        // One output dimension keeps the aspect ratio.
        let half = try VideoEncoder(settings: VideoEncoderSettings(width: 640), inputWidth: 1280, inputHeight: 720, frameRate: 30, id: "half")
        XCTAssertEqual([half.format.width, half.format.height], [640, 360])
        // A window that changes size mid-recording keeps the output size.
        var packets = 0
        for (index, size) in [(641, 481), (800, 600), (320, 200), (641, 481)].enumerated() {
            let pixels = [UInt8](repeating: 0x80, count: size.0 * size.1 * 4)
            try pixels.withUnsafeBytes {
                try odd.encode(bgr0: $0.baseAddress!, bytesPerRow: size.0 * 4, width: size.0, height: size.1, pts: Int64(index)) { _ in packets += 1 }
            }
        }
        try odd.finish { _ in packets += 1 }
        XCTAssertEqual(packets, 4)
    }

    func testVideoEncoderSupportsCBRAndRejectsAnUnknownPreset() throws {
        let cbr = try VideoEncoder(settings: VideoEncoderSettings(tune: "zerolatency", rateControl: .cbr(bitsPerSecond: 2_500_000)),
                                   inputWidth: 320, inputHeight: 240, frameRate: 30, id: "cbr")
        XCTAssertEqual(cbr.format.bitRate, 2_500_000)
        XCTAssertThrowsError(try VideoEncoder(settings: VideoEncoderSettings(preset: "warpspeed"), inputWidth: 320, inputHeight: 240,
                                              frameRate: 30, id: "bad")) {
            XCTAssertTrue("\($0)".contains("preset warpspeed"), "\($0)")
        }
    }

    func testAudioEncoderEmitsContiguousAACPackets() throws {
        let recording = try SyntheticRecording(seconds: 3)
        let format = recording.audioFormat
        XCTAssertEqual(format.codec, .aac)
        XCTAssertEqual([Int(format.timescale), format.sampleRate, format.channels, format.frameSize], [48_000, 48_000, 2, 1024])
        XCTAssertEqual(Array(format.extradata.prefix(2)), [0x11, 0x90], "AudioSpecificConfig: AAC-LC, 48 kHz, stereo")
        for type in [SampleBufferType.audioApp, .audioMic] {
            let packets = recording.samples(of: type)
            // 144000 samples = 140 full frames + 1 partial, plus the encoder's priming frame.
            XCTAssertEqual(packets.count, 142, "\(type)")
            XCTAssertEqual(packets.first?.presentationTime.value, -1024, "priming delay")
            for (index, sample) in packets.enumerated() {
                XCTAssertEqual(sample.presentationTime.value, Int64(index - 1) * 1024, "\(type) packet \(index)")
            }
        }
    }

    func testAudioEncoderRefusesAGapRatherThanFillingItAgain() throws {
        // Gaps become silence once, in AudioTrackAssembler (AudioGapTests); here one is an error.
        let encoder = try AudioEncoder(settings: .standard, type: .audioMic, id: "gap")
        var packets: [SampleBuffer] = []
        try encoder.encode(SyntheticRecording.sine(440, start: 0, count: 1024, type: .audioMic)) { packets.append($0) }
        XCTAssertThrowsError(try encoder.encode(SyntheticRecording.sine(440, start: 49_024, count: 1024, type: .audioMic)) { packets.append($0) }) {
            XCTAssertTrue("\($0)".contains("must be contiguous"), "\($0)")
        }
    }

    // MARK: Files

    func testMP4RecordingHasThreeStreamsTheRightColourAndIsFinalized() throws {
        let path = scratch.path + "/red.mp4"
        let context = try record(FileOutputOptions(path: path, container: .mp4))
        XCTAssertEqual(context.errors, [])
        XCTAssertEqual(context.serviceInfo["path"], path)
        try checkRecording(path)
        // Finalized in place (stop in constant time): the fragments became one mdat, the index is appended.
        XCTAssertEqual(try MediaProbe.topLevelBoxes(path), ["ftyp", "mdat", "moov"], "a plain MP4, index last")
        XCTAssertEqual(scratch.entries, ["red.mp4"], "no temporary file left")
    }

    func testMP4WithFaststartHasItsIndexFirst() throws {
        let path = scratch.path + "/first.mp4"
        var options = FileOutputOptions(path: path, container: .mp4)
        options.faststart = true
        let context = try record(options)
        XCTAssertEqual(context.errors, [])
        try checkRecording(path)
        let boxes = try MediaProbe.topLevelBoxes(path)
        XCTAssertFalse(boxes.contains("moof"), "not fragmented after finish: \(boxes)")
        let moov = try XCTUnwrap(boxes.firstIndex(of: "moov"), "\(boxes)")
        let mdat = try XCTUnwrap(boxes.firstIndex(of: "mdat"), "\(boxes)")
        XCTAssertLessThan(moov, mdat, "faststart: index before media")
        XCTAssertEqual(scratch.entries, ["first.mp4"], "no temporary file left")
    }

    func testMKVRecordingHasThreeStreamsAndTheRightColour() throws {
        let path = scratch.path + "/red.mkv"
        let context = try record(FileOutputOptions(path: path, container: .mkv))
        XCTAssertEqual(context.errors, [])
        try checkRecording(path)
        XCTAssertEqual(scratch.entries, ["red.mkv"])
    }

    func testUnfinishedFilesPlayUpToTheLastSecond() throws {
        let recording = try SyntheticRecording(seconds: 3)
        for container in [FileOutputOptions.Container.mp4, .mkv] {
            let path = scratch.path + "/crash.\(container.rawValue)"
            let handler = FileUploadHandler(options: FileOutputOptions(path: path, container: container))
            let context = MediaTestContext()
            try handler.broadcastStarted(setupInfo: SetupInfo(), context: context)
            for sample in recording.samples { handler.processSampleBuffer(sample, with: sample.type) }
            // As after kill -9: nothing finished, read the file as it is on disk now.
            let probe = try MediaProbe.probe(path)
            let video = probe.streams.first { $0.type == "video" }
            let packets = video?.packets ?? 0
            print("unfinished \(container): \(packets) of 90 video packets, \(probe.streams.map(\.packets)) per stream")
            XCTAssertEqual(probe.streams.count, 3, "\(container): \(probe.stderr)")
            XCTAssertGreaterThanOrEqual(packets, 90 - 30 - 10, "\(container): all but about the last second is readable")
            context.discard()
            handler.broadcastFinished()
        }
        XCTAssertEqual(scratch.entries, [])
    }

    func testDiscardDeletesTheFile() throws {
        let path = scratch.path + "/discarded.mp4"
        let recording = try SyntheticRecording(seconds: 1)
        let handler = FileUploadHandler(options: FileOutputOptions(path: path))
        let context = MediaTestContext()
        try handler.broadcastStarted(setupInfo: SetupInfo(), context: context)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "created at start")
        for sample in recording.samples { handler.processSampleBuffer(sample, with: sample.type) }
        context.discard()
        handler.broadcastFinished()
        XCTAssertEqual(context.errors, [])
        XCTAssertEqual(scratch.entries, [], "discard leaves nothing behind")
    }

    func testOnlyTheStreamsTheRecordingHasAreWritten() throws {
        let path = scratch.path + "/no-mic.mkv"
        let context = try record(FileOutputOptions(path: path, container: .mkv), streams: [.video, .audioApp], seconds: 1)
        XCTAssertEqual(context.errors, [])
        let probe = try MediaProbe.probe(path)
        XCTAssertEqual(probe.streams.map(\.codec), ["h264", "aac"])
    }

    func testEveryAnnouncedStreamIsInTheFileFromTheStartEvenASilentOne() throws {
        let path = scratch.path + "/silent-mic.mkv"
        let recording = try SyntheticRecording(seconds: 2)
        let handler = FileUploadHandler(options: FileOutputOptions(path: path, container: .mkv))
        let context = MediaTestContext()
        try handler.broadcastStarted(setupInfo: SetupInfo(), context: context)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the container is opened in broadcastStarted")
        for sample in recording.samples where sample.type != .audioMic { handler.processSampleBuffer(sample, with: sample.type) }
        handler.broadcastFinished()
        XCTAssertEqual(context.errors, [])
        let probe = try MediaProbe.probe(path)
        XCTAssertEqual(probe.streams.map(\.codec), ["h264", "aac", "aac"], "every stream the context announced")
        XCTAssertEqual(Double(probe.streams.first?.packets ?? 0), 60, accuracy: 1, "nothing was held back or lost")
    }

    func testARecordingWithoutMediaReportsItAndLeavesNoFile() throws {
        let path = scratch.path + "/empty.mp4"
        let handler = FileUploadHandler(options: FileOutputOptions(path: path))
        let context = MediaTestContext()
        try handler.broadcastStarted(setupInfo: SetupInfo(), context: context)
        handler.broadcastFinished()
        XCTAssertEqual(context.errors.map(\.kind), [.outputFailed])
        XCTAssertEqual(scratch.entries, [])
    }

    func testAWriteFailureEndsTheBroadcastAndKeepsAPlayableFile() throws {
        let path = scratch.path + "/full.mp4"
        let recording = try SyntheticRecording(seconds: 3)
        let handler = FileUploadHandler(options: FileOutputOptions(path: path))
        let context = MediaTestContext()
        try handler.broadcastStarted(setupInfo: SetupInfo(), context: context)
        // A file size limit makes writes fail (EFBIG) like a full disk (ENOSPC) does.
        var saved = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved)
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: 60_000, rlim_max: saved.rlim_max)
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        for sample in recording.samples { handler.processSampleBuffer(sample, with: sample.type) }
        handler.broadcastFinished()
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &saved)
        signal(SIGXFSZ, previousHandler)

        XCTAssertEqual(context.errors.map(\.kind), [.outputFailed])
        XCTAssertEqual(context.errors.first?.message, "writing \(path) failed: File too large")
        let probe = try MediaProbe.probe(path)
        XCTAssertEqual(probe.exitCode, 0, probe.stderr)
        XCTAssertGreaterThan(probe.streams.first { $0.type == "video" }?.packets ?? 0, 0, "what was written plays")
        XCTAssertEqual(scratch.entries, ["full.mp4"])
    }

    func testMuxerReportsAFullDiskInItsError() throws {
        let recording = try SyntheticRecording(seconds: 1)
        let muxer = try Muxer(url: "/dev/full", container: "matroska", streams: [recording.videoFormat, recording.audioFormat])
        var failure: MediaError?
        do {
            for sample in recording.samples where sample.type != .audioMic {
                try muxer.write(sample, toStream: sample.type == .video ? 0 : 1)
            }
            try muxer.finish()
        } catch {
            failure = error
        }
        XCTAssertEqual(failure?.reason, "No space left on device", failure?.message ?? "no error")
        muxer.abort()
    }

    func testRemuxerTurnsAFragmentedMP4IntoAPlainOne() throws {
        let recording = try SyntheticRecording(seconds: 1)
        let fragmented = scratch.path + "/frag.mp4"
        let muxer = try Muxer(url: fragmented, container: "mp4", streams: [recording.videoFormat],
                              options: ["movflags": "+frag_keyframe+empty_moov+default_base_moof"])
        for sample in recording.samples(of: .video) { try muxer.write(sample, toStream: 0) }
        try muxer.finish()
        XCTAssertGreaterThan(muxer.bytesWritten, 0)
        XCTAssertTrue(try MediaProbe.topLevelBoxes(fragmented).contains("moof"))
        let plain = scratch.path + "/plain.mp4"
        try Remuxer.remux(from: fragmented, to: plain, container: "mp4", options: ["movflags": "+faststart"])
        XCTAssertFalse(try MediaProbe.topLevelBoxes(plain).contains("moof"))
        XCTAssertEqual(try MediaProbe.probe(plain).streams.first?.packets, 30)
    }

    func testMuxerRejectsUnknownOptionsAndLeavesNoFile() throws {
        let recording = try SyntheticRecording(seconds: 0.1)
        let path = scratch.path + "/typo.mp4"
        XCTAssertThrowsError(try Muxer(url: path, container: "mp4", streams: [recording.videoFormat], options: ["movflag": "+faststart"])) {
            XCTAssertTrue("\($0)".contains("movflag"), "\($0)")
        }
        XCTAssertEqual(scratch.entries, [])
    }

    // MARK: Validation

    func testValidationRejectsAMissingDirectory() {
        let options = FileOutputOptions(path: scratch.path + "/nope/out.mp4")
        XCTAssertThrowsError(try options.validate()) {
            XCTAssertEqual(($0 as? BroadcastError)?.kind, .outputFailed)
            XCTAssertTrue("\($0)".contains("directory \(scratch.path)/nope does not exist"), "\($0)")
        }
        XCTAssertEqual(scratch.entries, [])
    }

    func testValidationRejectsAnExistingFileUnlessOverwriting() throws {
        let path = scratch.path + "/taken.mp4"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try FileOutputOptions(path: path).validate()) {
            XCTAssertEqual(($0 as? BroadcastError)?.kind, .outputFailed)
            XCTAssertEqual("\($0)", "\(path) exists; pass --overwrite to replace it")
        }
        XCTAssertNoThrow(try FileOutputOptions(path: path, overwrite: true).validate())
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "keep me", "validation does not touch the file")
        XCTAssertEqual(scratch.entries, ["taken.mp4"])
    }

    func testValidationRejectsAnUnwritablePath() throws {
        XCTAssertThrowsError(try FileOutputOptions(path: "/proc/foo.mp4").validate()) {
            XCTAssertEqual(($0 as? BroadcastError)?.kind, .outputFailed, "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/foo.mp4"))
        if getuid() != 0 {
            let locked = scratch.path + "/locked"
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
            XCTAssertThrowsError(try FileOutputOptions(path: locked + "/out.mp4").validate())
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locked), [])
        }
    }

    func testValidationPassesAndLeavesNothingBehind() throws {
        XCTAssertNoThrow(try FileOutputOptions(path: scratch.path + "/fine.mp4").validate())
        XCTAssertEqual(scratch.entries, [])
    }

    func testStartRefusesAnExistingFile() throws {
        let path = scratch.path + "/exists.mkv"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let handler = FileUploadHandler(options: FileOutputOptions(path: path, container: .mkv))
        XCTAssertThrowsError(try handler.broadcastStarted(setupInfo: SetupInfo(), context: MediaTestContext()))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old")
    }

    func testDefaultPathIsATimestampedNameInTheVideosDirectory() throws {
        let saved = ProcessInfo.processInfo.environment
        defer {
            for key in ["HOME", "XDG_CONFIG_HOME", "XDG_VIDEOS_DIR"] {
                if let value = saved[key] { setenv(key, value, 1) } else { unsetenv(key) }
            }
        }
        // From user-dirs.dirs, with $HOME expanded; the directory is created by validation.
        setenv("HOME", scratch.path, 1)
        unsetenv("XDG_VIDEOS_DIR")
        setenv("XDG_CONFIG_HOME", scratch.path + "/config", 1)
        try FileManager.default.createDirectory(atPath: scratch.path + "/config", withIntermediateDirectories: true)
        try Data("# comment\nXDG_VIDEOS_DIR=\"$HOME/Filme\"\n".utf8).write(to: URL(fileURLWithPath: scratch.path + "/config/user-dirs.dirs"))
        let options = FileOutputOptions(container: .mkv)
        let path = options.resolvedPath()
        XCTAssertTrue(path.hasPrefix(scratch.path + "/Filme/Recording "), path)
        let name = String(path.split(separator: "/").last ?? "")
        XCTAssertNotNil(name.range(of: #"^Recording \d{4}-\d\d-\d\d at \d\d\.\d\d\.\d\d\.mkv$"#, options: .regularExpression), name)
        XCTAssertNoThrow(try options.validate())
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path + "/Filme"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/Filme"), [])
        // The environment variable wins; without anything, ~/Videos.
        setenv("XDG_VIDEOS_DIR", "/srv/videos", 1)
        XCTAssertTrue(FileOutputOptions().resolvedPath().hasPrefix("/srv/videos/Recording "))
        unsetenv("XDG_VIDEOS_DIR")
        setenv("XDG_CONFIG_HOME", scratch.path + "/none", 1)
        XCTAssertTrue(FileOutputOptions().resolvedPath().hasPrefix(scratch.path + "/Videos/Recording "))
    }

    // MARK: Helpers

    /// Records 3 s (or `seconds`) of red and two tones through a file handler; returns its context.
    private func record(_ options: FileOutputOptions, streams: Set<SampleBufferType> = [.video, .audioApp, .audioMic],
                        seconds: Double = 3) throws -> MediaTestContext {
        let recording = try SyntheticRecording(seconds: seconds)
        let handler = FileUploadHandler(options: options)
        var expected = HandlerInput(video: .encoded(.fileDefault), appAudio: .encoded(.standard), micAudio: .encoded(.standard))
        expected.sharesVideoEncode = true
        expected.toleratesEncoderDelay = true  // a file may get skip-spliced video (nobody watches it live)
        expected.camera = .encoded(.fileDefault)  // the camera's own track, when the recording has one
        XCTAssertEqual(handler.input, expected, "with the default video settings the file shares a stream's encode and takes late video")
        let context = MediaTestContext(streams: streams)
        try handler.broadcastStarted(setupInfo: SetupInfo(), context: context)
        for sample in recording.samples where streams.contains(sample.type) {
            handler.processSampleBuffer(sample, with: sample.type)
        }
        handler.broadcastPaused()
        handler.broadcastResumed()
        handler.broadcastFinished()
        return context
    }

    /// Checks a 3 s recording: h264 640x480 yuv420p BT.709 with 90 frames, two AAC 48 kHz stereo
    /// tracks, about 3 s long, and a red picture at 1 s.
    private func checkRecording(_ path: String) throws {
        let probe = try MediaProbe.probe(path)
        XCTAssertEqual(probe.exitCode, 0, probe.stderr)
        print("ffprobe \(path): duration \(probe.duration) s, streams \(probe.streams)")
        XCTAssertEqual(probe.streams.map(\.codec), ["h264", "aac", "aac"])
        let video = try XCTUnwrap(probe.streams.first)
        XCTAssertEqual(video.width, 640)
        XCTAssertEqual(video.height, 480)
        XCTAssertEqual(video.pixelFormat, "yuv420p")
        XCTAssertEqual(video.colorSpace, "bt709")
        XCTAssertEqual(video.colorRange, "tv")
        XCTAssertEqual(Double(video.packets), 90, accuracy: 1)
        for audio in probe.streams.dropFirst() {
            XCTAssertEqual(audio.sampleRate, 48_000)
            XCTAssertEqual(audio.channels, 2)
            XCTAssertEqual(Double(audio.packets), 142, accuracy: 1)
        }
        XCTAssertEqual(probe.duration, 3, accuracy: 0.15)
        let colour = try XCTUnwrap(try MediaProbe.meanColour(of: path, at: 1))
        print("colour at 1 s: \(colour)")
        XCTAssertEqual(colour.r, 255, accuracy: 12)
        XCTAssertEqual(colour.g, 0, accuracy: 12)
        XCTAssertEqual(colour.b, 0, accuracy: 12)
    }
}
