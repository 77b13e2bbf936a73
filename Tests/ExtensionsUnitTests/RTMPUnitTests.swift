import CFFmpeg
import Foundation
import RecordKit
import RecordKitMedia
@testable import RTMPUploadExtension
import XCTest

/// The RTMP handler's parts that need no server: URL parsing and masking, back-off, the
/// bounded GOP queue, FLV timestamps across reconnections, FFmpeg log masking.
final class RTMPUnitTests: XCTestCase {
    // MARK: URLs and secrets

    func testURLsSplitIntoHostApplicationAndKey() throws {
        let plain = try RTMPEndpoint(parsing: "rtmp://live.example.com/app/abc-123")
        XCTAssertEqual(plain.scheme, .rtmp)
        XCTAssertEqual(plain.host, "live.example.com")
        XCTAssertEqual(plain.port, 1935)
        XCTAssertEqual(plain.application, "app")
        XCTAssertEqual(plain.streamKey, "abc-123")
        XCTAssertEqual(plain.masked, "rtmp://live.example.com/app/****")

        let full = try RTMPEndpoint(parsing: "RTMPS://user:pw@[::1]:8443/app/instance/key.flv?bandwidthtest=true")
        XCTAssertEqual(full.scheme, .rtmps)
        XCTAssertEqual(full.host, "::1")
        XCTAssertEqual(full.port, 8443)
        XCTAssertEqual(full.application, "app/instance")
        XCTAssertEqual(full.streamKey, "key.flv?bandwidthtest=true")
        XCTAssertEqual(full.masked, "rtmps://[::1]:8443/app/instance/****")
        XCTAssertEqual(full.ffmpegOptions["rtmp_playpath"], "key.flv?bandwidthtest=true", "the key goes to FFmpeg as is")
        XCTAssertEqual(full.ffmpegOptions["rtmp_app"], "app/instance")
        for secret in ["key.flv", "bandwidthtest", "user:pw", "pw"] {
            XCTAssertFalse(full.masked.contains(secret), "\(secret) shown in \(full.masked)")
        }
        XCTAssertEqual(try RTMPEndpoint(parsing: "rtmps://h/a/k").port, 443)
        XCTAssertEqual(full.mask("publishing key.flv?bandwidthtest=true as user:pw"), "publishing **** as ****")
    }

    func testMalformedURLsAreRefusedWithoutShowingTheKey() {
        let cases: [(String, String)] = [
            ("secretkey-77", "no scheme"),
            ("http://host/app/secretkey-77", "scheme 'http' is not supported"),
            ("rtmp:///app/secretkey-77", "has no host"),
            ("rtmp://host:99999/app/secretkey-77", "bad port"),
            ("rtmp://host:x/app/secretkey-77", "bad port"),
            ("rtmp://host", "no application and no stream key"),
            ("rtmp://host/secretkey-77", "no stream key (or no application)"),
            ("rtmp://host/app/", "has no stream key"),
            ("rtmp://host/app//secretkey-77", "empty path component"),
            ("rtmp://host/app/secret key-77", "spaces"),
        ]
        for (url, expected) in cases {
            XCTAssertThrowsError(try RTMPEndpoint(parsing: url), url) { error in
                guard let error = error as? BroadcastError else { return XCTFail("\(url): \(error)") }
                XCTAssertEqual(error.kind, .invalidSetup, url)
                XCTAssertTrue(error.message.contains(expected), "\(url): '\(error.message)' should say \(expected)")
                XCTAssertFalse(error.message.contains("secretkey"), "\(url): the key leaked into '\(error.message)'")
                XCTAssertFalse(error.message.contains("secret key"), "\(url): the key leaked into '\(error.message)'")
            }
        }
    }

    func testFailureMessagesNameTheMaskedURLAndTheCause() throws {
        let endpoint = try RTMPEndpoint(parsing: "rtmp://127.0.0.1:1/live/secretkey-77")
        let messages = [
            RTMPFailure(reason: .refused).firstConnectionError(endpoint),
            RTMPFailure(reason: .unknownHost("Name or service not known")).firstConnectionError(endpoint),
            RTMPFailure(reason: .rejected(serverMessage: nil)).firstConnectionError(endpoint),
            RTMPFailure(reason: .timedOut(seconds: 10)).firstConnectionError(endpoint),
            RTMPFailure(reason: .lost("Broken pipe")).gaveUpError(endpoint, attempts: 25, seconds: 612),
        ]
        for error in messages {
            XCTAssertTrue(error.message.contains("rtmp://127.0.0.1:1/live/****"), error.message)
            XCTAssertFalse(error.message.contains("secretkey"), error.message)
        }
        XCTAssertEqual(messages[0].kind, .networkFailed)
        XCTAssertTrue(messages[0].message.contains("refused the connection"))
        XCTAssertTrue(messages[1].message.contains("unknown"))
        XCTAssertEqual(messages[2].kind, .invalidSetup, "a rejected key is a setup problem")
        XCTAssertTrue(messages[2].message.contains("refused to publish"))
        XCTAssertTrue(messages[4].message.contains("25 attempts"))
    }

    // MARK: Back-off

    func testReconnectDelaysGrowByHalfAndAreCapped() {
        let policy = RTMPReconnectPolicy()
        let nominal = (1...12).map { policy.nominalDelay(beforeAttempt: $0) }
        XCTAssertEqual(Array(nominal.prefix(4)), [2, 3, 4.5, 6.75])
        XCTAssertEqual(nominal.last, 30, "capped at 30 s")
        XCTAssertEqual(policy.maxAttempts, 25)
        XCTAssertEqual(policy.delay(beforeAttempt: 1, random: -1), 1.8, accuracy: 1e-9)
        XCTAssertEqual(policy.delay(beforeAttempt: 1, random: 1), 2.2, accuracy: 1e-9)
        for attempt in 1...25 {
            let d = policy.delay(beforeAttempt: attempt)
            let n = policy.nominalDelay(beforeAttempt: attempt)
            XCTAssertTrue(d >= n * 0.9 - 1e-9 && d <= n * 1.1 + 1e-9, "attempt \(attempt): \(d) s outside ±10 % of \(n) s")
        }
        let total = (1...25).reduce(0.0) { $0 + policy.nominalDelay(beforeAttempt: $1) }
        XCTAssertEqual(total, 605, accuracy: 5, "25 attempts span about 10 minutes")
    }

    // MARK: The bounded queue

    func testQueueDropsTheOldestWholeGroupsOfPicturesBeyondItsBound() {
        var queue = PacketQueue(limitSeconds: 4)
        // 10 s at 10 fps with a key frame every 2 s, and audio every 50 ms.
        var audioMs = 0
        for frame in 0..<100 {
            let ms = frame * 100
            queue.push(videoPacket(ms: ms, key: frame % 20 == 0))
            while audioMs < ms + 100 {
                queue.push(audioPacket(ms: audioMs))
                audioMs += 50
            }
        }
        XCTAssertLessThanOrEqual(queue.spanNanoseconds, 4_000_000_000)
        let first = queue.popFirst()
        XCTAssertEqual(first?.isKeyFrame, true, "what remains starts on a key frame")
        // 10 s produced; at most 4 s + one group kept. Key frames at 0, 2, 4, 6, 8 s: the groups
        // from 0 and 2 s (and the one from 4 s once 8.05 s arrived) were dropped whole.
        XCTAssertEqual(first?.time, 6_000_000_000)
        XCTAssertEqual(queue.dropped, 60 * 3 /* video + 2 audio per frame */, "three groups of 20 frames and their audio")
        XCTAssertEqual(queue.counts.droppedVideo, 60, "the pipeline's statistics count the video of those groups")
        XCTAssertEqual(queue.counts.droppedAudio, 120)
        XCTAssertEqual(queue.counts.queued, 40 * 3 - 1, "what waits, the first one taken")
        var count = 1
        while queue.popFirst() != nil { count += 1 }
        XCTAssertEqual(count, 40 * 3)
    }

    func testQueueWithNoLaterKeyFrameDropsEverythingAndWaitsForOne() {
        var queue = PacketQueue(limitSeconds: 1)
        queue.push(videoPacket(ms: 0, key: true))
        for frame in 1...15 { queue.push(videoPacket(ms: frame * 100, key: false)) }
        XCTAssertTrue(queue.isEmpty, "one group longer than the bound: nothing decodable can stay")
        XCTAssertEqual(queue.dropped, 16, "12 dropped at 1.1 s, then 4 refused while waiting for a key frame")
        queue.push(videoPacket(ms: 1600, key: false))
        queue.push(audioPacket(ms: 1600))
        XCTAssertTrue(queue.isEmpty, "nothing is taken before the next key frame")
        queue.push(videoPacket(ms: 1700, key: true))
        queue.push(audioPacket(ms: 1700))
        XCTAssertEqual(queue.count, 2)
        XCTAssertEqual(queue.dropped, 18)
    }

    func testSessionStartsOnAKeyFrame() {
        var queue = PacketQueue(limitSeconds: 10)
        queue.push(audioPacket(ms: 0))
        queue.push(videoPacket(ms: 0, key: false))
        queue.push(audioPacket(ms: 20))
        queue.push(videoPacket(ms: 33, key: true))
        queue.push(audioPacket(ms: 40))
        XCTAssertEqual(queue.dropped, 3, "nothing before the first key frame is taken")
        XCTAssertEqual(queue.startSession(), 0)
        XCTAssertEqual(queue.popFirst()?.isKeyFrame, true)
        XCTAssertEqual(queue.popFirst()?.isVideo, false)
        queue.push(videoPacket(ms: 66, key: false))
        queue.push(audioPacket(ms: 60))
        queue.push(videoPacket(ms: 100, key: true))
        XCTAssertEqual(queue.startSession(), 2, "a new connection starts at the next key frame")
        XCTAssertEqual(queue.popFirst()?.isKeyFrame, true)
        XCTAssertNil(queue.popFirst())
        XCTAssertEqual(queue.dropped, 5)
    }

    // MARK: FLV timestamps

    func testTimestampsStartAtZeroAndKeepGoingAcrossReconnections() throws {
        var stamps = FLVTimestamps()
        // x264 with B-frames: the first key frame decodes at -2/30 s, shows at 0.
        let key = videoPacket(pts: MediaTime(value: 0, timescale: 30), dts: MediaTime(value: -2, timescale: 30), key: true)
        let first = try XCTUnwrap(stamps.stamp(key, stream: 0))
        XCTAssertEqual(first.timelineTime, MediaTime(value: 0, timescale: 1000))
        XCTAssertEqual(first.presentationTime, MediaTime(value: 67, timescale: 1000))
        XCTAssertEqual(stamps.offsetMilliseconds, 67)
        // AAC priming packet at -1024 samples: after the offset, 46 ms.
        let priming = audioPacket(time: MediaTime(value: -1024, timescale: 48_000))
        XCTAssertEqual(try XCTUnwrap(stamps.stamp(priming, stream: 1)).timelineTime.value, 46)
        // A later connection starts at broadcast time 12 s: the FLV time goes on from there.
        let later = videoPacket(pts: MediaTime(value: 362, timescale: 30), dts: MediaTime(value: 360, timescale: 30), key: true)
        XCTAssertEqual(try XCTUnwrap(stamps.stamp(later, stream: 0)).timelineTime.value, 12_067)
        XCTAssertEqual(stamps.broadcastMilliseconds(ofFLV: 12_067), 12_000)
        // Going back in time is refused.
        XCTAssertNil(stamps.stamp(videoPacket(ms: 11_000, key: false), stream: 0))
    }

    // MARK: Filler data

    func testFillerNALUnitsAreNotSent() throws {
        func unit(_ type: UInt8, _ size: Int) -> [UInt8] {
            [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), type] + [UInt8](repeating: 0xFF, count: size - 1)
        }
        let slice = unit(0x65, 300), sei = unit(0x06, 20), filler = unit(0x0C, 200_000)
        let padded = packet(bytes: sei + slice + filler)
        let stripped = H264FillerStripper.strip(padded)
        guard case .packet(let p) = stripped.payload else { return XCTFail("not a packet") }
        XCTAssertEqual(Array(p.data.bytes), sei + slice, "SEI and slice kept, filler gone")
        XCTAssertTrue(p.isKeyFrame)
        XCTAssertEqual(stripped.presentationTime, padded.presentationTime)
        let plain = packet(bytes: sei + slice)
        guard case .packet(let q) = H264FillerStripper.strip(plain).payload, case .packet(let original) = plain.payload else {
            return XCTFail("not a packet")
        }
        XCTAssertTrue(q.data === original.data, "a packet without filler is passed on without a copy")
        let garbage = packet(bytes: [0, 0, 9, 9, 0x65])
        guard case .packet(let g) = H264FillerStripper.strip(garbage).payload else { return XCTFail("not a packet") }
        XCTAssertEqual(Array(g.data.bytes), [0, 0, 9, 9, 0x65], "what does not parse is left alone")
    }

    // MARK: FFmpeg's log

    func testFFmpegLogMasksRegisteredSecretsAndCapturesPerThread() {
        FFmpegLog.addSecret("topsecret-key-42")
        defer { FFmpegLog.removeSecret("topsecret-key-42") }
        XCTAssertEqual(FFmpegLog.mask("rtmp://h/app/topsecret-key-42?x"), "rtmp://h/app/****?x")
        FFmpegLog.beginCapture()
        "topsecret-key-42".withCString { key in
            withVaList([key]) { av_vlog(nil, AV_LOG_ERROR, "publishing %s failed\n", $0) }
        }
        withVaList([]) { av_vlog(nil, AV_LOG_DEBUG, "debug chatter\n", $0) }
        let captured = FFmpegLog.takeCaptured()
        FFmpegLog.endCapture()
        XCTAssertEqual(captured, ["publishing **** failed"], "errors captured and masked, debug dropped")
    }

    // MARK: Helpers

    private func videoPacket(ms: Int, key: Bool) -> SampleBuffer {
        videoPacket(pts: MediaTime(value: Int64(ms), timescale: 1000), dts: MediaTime(value: Int64(ms), timescale: 1000), key: key)
    }

    private func videoPacket(pts: MediaTime, dts: MediaTime, key: Bool) -> SampleBuffer {
        let format = EncodedFormat(codec: .h264, timescale: pts.timescale, extradata: [1], width: 16, height: 16, frameRate: 30)
        return SampleBuffer(type: .video, presentationTime: pts, duration: MediaTime(value: 1, timescale: 30),
                            formatDescription: .encoded(format),
                            payload: .packet(EncodedPacket(data: MediaBuffer(copying: [0, 0, 0, 1, 0x65]), decodeTime: dts,
                                                           isKeyFrame: key, encoderID: "test")))
    }

    private func packet(bytes: [UInt8]) -> SampleBuffer {
        let format = EncodedFormat(codec: .h264, timescale: 30, extradata: [1], width: 16, height: 16, frameRate: 30)
        return SampleBuffer(type: .video, presentationTime: MediaTime(value: 3, timescale: 30), duration: MediaTime(value: 1, timescale: 30),
                            formatDescription: .encoded(format),
                            payload: .packet(EncodedPacket(data: MediaBuffer(copying: bytes), decodeTime: MediaTime(value: 1, timescale: 30),
                                                           isKeyFrame: true, encoderID: "test")))
    }

    private func audioPacket(ms: Int) -> SampleBuffer { audioPacket(time: MediaTime(value: Int64(ms), timescale: 1000)) }

    private func audioPacket(time: MediaTime) -> SampleBuffer {
        let format = EncodedFormat(codec: .aac, timescale: 48_000, extradata: [0x11, 0x90], sampleRate: 48_000, channels: 2, frameSize: 1024)
        return SampleBuffer(type: .audioMixed, presentationTime: time, duration: MediaTime(value: 1024, timescale: 48_000),
                            formatDescription: .encoded(format),
                            payload: .packet(EncodedPacket(data: MediaBuffer(copying: [0x21, 0x10]), decodeTime: time,
                                                           isKeyFrame: true, encoderID: "test")))
    }
}
