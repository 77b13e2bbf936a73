import Foundation
import RecordKit
import RecordKitCapture
import Synchronization
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// PulseAudio capture (asynchronous API), the audio track assembler and the mixer.
///
/// The capture tests need a PulseAudio server and skip unless `PULSE_SERVER` is set. They expect
/// the rig of scripts/rig.sh: the default sink's monitor carries a 440 Hz tone and the default
/// source a 1000 Hz tone (`RK_TEST_APP_TONE_HZ` / `RK_TEST_MIC_TONE_HZ` override the numbers).
/// The assembler, mixer and unreachable-server tests run everywhere.
final class AudioCaptureTests: XCTestCase {

    // MARK: - Capture from a real server

    func testCapturesAppToneFromDefaultSinkMonitorAndMicToneFromDefaultSource() throws {
        try requirePulse()
        let appHz = Double(ProcessInfo.processInfo.environment["RK_TEST_APP_TONE_HZ"] ?? "") ?? 440
        let micHz = Double(ProcessInfo.processInfo.environment["RK_TEST_MIC_TONE_HZ"] ?? "") ?? 1000

        let connection = try PulseAudioConnection(clientName: "RecordKitTests")
        defer { connection.close() }
        XCTAssertTrue(connection.isConnected)

        let origin = monotonicNs()
        let app = CaptureProbe(type: .audioApp, originNs: origin)
        let mic = CaptureProbe(type: .audioMic, originNs: origin)
        let appStream = try connection.openStream(.defaultSinkMonitor, name: "test app audio", deliver: app.deliver)
        let micStream = try connection.openStream(.defaultSource, name: "test mic audio", deliver: mic.deliver)
        XCTAssertTrue(appStream.sourceName.hasSuffix(".monitor"), appStream.sourceName)
        let seconds = Double(ProcessInfo.processInfo.environment["RK_TEST_CAPTURE_SECONDS"] ?? "") ?? 2
        Thread.sleep(forTimeInterval: seconds)
        appStream.stop()
        micStream.stop()
        app.assembler.finish()
        mic.assembler.finish()

        for (probe, hz, stream) in [(app, appHz, appStream), (mic, micHz, micStream)] {
            let chunks = probe.chunks
            let name = stream.sourceName
            XCTAssertGreaterThan(chunks.count, 50, "\(name): too few chunks in 2 s")
            // Signed latency as Pulse reported it: delivery time minus capture time (negative for
            // a sink monitor means the first frame is heard after it is delivered).
            let latencies = chunks.map { Double(Int64($0.deliveredNs) - Int64($0.captureNs)) / 1e6 }
            let sorted = latencies.sorted()
            let sizes = chunks.map(\.frames).sorted()
            // How far each chunk's time is from where the samples before it put it (jitter + drift).
            var frames: Int64 = 0
            let residuals = chunks.map { chunk -> Double in
                defer { frames += Int64(chunk.frames) }
                return (Double(Int64(chunk.captureNs) - Int64(chunks[0].captureNs)) - Double(frames) / 48_000 * 1e9) / 1e6
            }
            print("[AudioCaptureTests] \(name): \(chunks.count) chunks, frames/chunk min \(sizes.first!) "
                + "median \(sizes[sizes.count / 2]) max \(sizes.last!); latency ms: "
                + String(format: "min %.2f median %.2f mean %.2f p95 %.2f max %.2f first %.2f; timestamp residual ms: min %.2f max %.2f",
                         sorted.first!, sorted[sorted.count / 2], latencies.reduce(0, +) / Double(latencies.count),
                         sorted[sorted.count * 95 / 100], sorted.last!, latencies[0],
                         residuals.min()!, residuals.max()!))
            for chunk in chunks {
                XCTAssertLessThan(abs(Int64(chunk.deliveredNs) - Int64(chunk.captureNs)), 200_000_000,
                                  "\(name): capture time not within 200 ms of now")
            }
            for (a, b) in zip(chunks, chunks.dropFirst()) {
                XCTAssertGreaterThan(b.captureNs, a.captureNs, "\(name): chunk times not increasing")
                // Each chunk starts about where the previous one ended (timestamps follow the samples).
                let expected = Double(a.frames) / 48_000 * 1e9
                XCTAssertEqual(Double(Int64(b.captureNs) - Int64(a.captureNs)), expected, accuracy: 20_000_000, "\(name): chunk time step")
            }
            XCTAssertLessThan(residuals.map(abs).max()!, 30, "\(name): timestamps wander from the sample count")

            let track = probe.track()
            XCTAssertEqual(track.blocks.dropLast().map(\.frames), Array(repeating: 1024, count: track.blocks.count - 1))
            XCTAssertEqual(track.blocks.map(\.start), track.blocks.indices.map { Int64($0) * 1024 }, "\(name): blocks not contiguous")
            XCTAssertEqual(Double(track.left.count) / 48_000, seconds, accuracy: 0.25, "\(name): track length")
            let window = Array(track.left.suffix(48_000))  // the last second
            let candidates: [Double] = [220, 330, 440, 550, 660, 880, 1000, 1200, 1500, 2000, 3000]
            let powers = candidates.map { goertzelPower(window, frequency: $0, sampleRate: 48_000) }
            let best = candidates[powers.indices.max { powers[$0] < powers[$1] }!]
            XCTAssertEqual(best, hz, "\(name): dominant tone")
            let expectedPower = goertzelPower(window, frequency: hz, sampleRate: 48_000)
            for (f, p) in zip(candidates, powers) where f != hz {
                XCTAssertGreaterThan(expectedPower, 100 * p, "\(name): \(f) Hz too strong next to \(hz) Hz")
            }
            let rms = (window.reduce(0) { $0 + Double($1) * Double($1) } / Double(window.count)).squareRoot()
            XCTAssertGreaterThan(rms, 0.01, "\(name): tone too quiet (rms \(rms))")
        }
    }

    func testStopFromInsideDeliverEndsDeliveries() throws {
        try requirePulse()
        let connection = try PulseAudioConnection()
        defer { connection.close() }
        let count = Mutex(0)
        let holder = StreamHolder()
        let stream = try connection.openStream(.defaultSinkMonitor, name: "test stop") { _, _, _ in
            let n = count.withLock { n -> Int in
                n += 1
                return n
            }
            if n == 5 { holder.stream?.stop() }  // on the PulseAudio thread
        }
        holder.stream = stream
        Thread.sleep(forTimeInterval: 0.5)
        let afterStop = count.withLock { $0 }
        XCTAssertGreaterThanOrEqual(afterStop, 5)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(count.withLock { $0 }, afterStop, "deliver called after stop()")
        stream.stop()  // idempotent
        XCTAssertTrue(connection.isConnected)
    }

    func testCloseStopsStreamsAndLaterOpensFail() throws {
        try requirePulse()
        let connection = try PulseAudioConnection()
        let count = Mutex(0)
        let stream = try connection.openStream(.defaultSource, name: "test close") { _, _, _ in
            count.withLock { $0 += 1 }
        }
        Thread.sleep(forTimeInterval: 0.2)
        connection.close()
        let atClose = count.withLock { $0 }
        XCTAssertGreaterThan(atClose, 0)
        XCTAssertFalse(connection.isConnected)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(count.withLock { $0 }, atClose, "deliver called after close()")
        stream.stop()
        connection.close()  // idempotent
        do {
            _ = try connection.openStream(.defaultSource, name: "too late") { _, _, _ in }
            XCTFail("openStream after close succeeded")
        } catch {
            XCTAssertEqual(error.kind, .noAudioServer, error.message)
        }
    }

    func testCloseFromInsideDeliverEndsEverything() throws {
        try requirePulse()
        let connection = try PulseAudioConnection()
        let count = Mutex(0)
        let stream = try connection.openStream(.defaultSinkMonitor, name: "test close inside") { _, _, _ in
            let n = count.withLock { n -> Int in
                n += 1
                return n
            }
            if n == 3 { connection.close() }  // on the PulseAudio thread
        }
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(count.withLock { $0 }, 3, "deliver called after close()")
        XCTAssertFalse(connection.isConnected)
        stream.stop()
    }

    func testSilentServerTimesOutAsNoAudioServer() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rk-silent-\(getpid()).sock").path
        let listener = try unixListener(path)  // accepts into the backlog, never answers
        defer {
            close(listener)
            unlink(path)
        }
        let started = monotonicNs()
        do {
            _ = try PulseAudioConnection(server: "unix:" + path, timeoutSeconds: 0.5)
            XCTFail("connected to a server that never answers")
        } catch {
            XCTAssertEqual(error.kind, .noAudioServer)
            XCTAssertTrue(error.message.contains(path) && error.message.contains("0.5 s"), error.message)
            print("[AudioCaptureTests] \(error.message)")
        }
        let elapsed = Double(monotonicNs() - started) / 1e9
        XCTAssertEqual(elapsed, 0.5, accuracy: 0.3, "the timeout is honoured")
    }

    func testUnknownSourceIsAudioSourceNotFound() throws {
        try requirePulse()
        let connection = try PulseAudioConnection()
        defer { connection.close() }
        for selector in [AudioSourceSelector.source("rk_no_such_source"), .sinkMonitor("rk_no_such_sink")] {
            do {
                _ = try connection.openStream(selector, name: "test missing") { _, _, _ in }
                XCTFail("opening \(selector) succeeded")
            } catch {
                XCTAssertEqual(error.kind, .audioSourceNotFound, error.message)
                XCTAssertTrue(error.message.contains("rk_no_such_s"), error.message)
                print("[AudioCaptureTests] \(error.message)")
            }
        }
        XCTAssertTrue(connection.isConnected, "a failed open must not harm the connection")
    }

    func testUnreachableServerIsNoAudioServer() {
        let started = monotonicNs()
        do {
            _ = try PulseAudioConnection(server: "unix:/nonexistent/sock", timeoutSeconds: 3)
            XCTFail("connected to a server that does not exist")
        } catch {
            XCTAssertEqual(error.kind, .noAudioServer)
            XCTAssertTrue(error.message.contains("unix:/nonexistent/sock"), error.message)
            print("[AudioCaptureTests] \(error.message)")
        }
        XCTAssertLessThan(monotonicNs() - started, 2_000_000_000, "a refused connection should fail fast")
    }

    func testServerGoingAwayCallsOnDisconnectOnce() throws {
        try requirePulse()
        let daemon = try PrivatePulseDaemon()
        defer { daemon.kill() }
        let connection = try PulseAudioConnection(server: daemon.server)
        defer { connection.close() }
        let reasons = Mutex<[String]>([])
        connection.onDisconnect = { reason in reasons.withLock { $0.append(reason) } }
        let stream = try connection.openStream(.defaultSinkMonitor, name: "test disconnect") { _, _, _ in }
        XCTAssertEqual(stream.sourceName, "rk_private.monitor")
        daemon.kill()
        let deadline = Date().addingTimeInterval(3)
        while reasons.withLock({ $0.isEmpty }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.2)
        let got = reasons.withLock { $0 }
        XCTAssertEqual(got.count, 1, "onDisconnect calls: \(got)")
        print("[AudioCaptureTests] onDisconnect: \(got.first ?? "-")")
        XCTAssertFalse(connection.isConnected)
        do {
            _ = try connection.openStream(.defaultSinkMonitor, name: "after loss") { _, _, _ in }
            XCTFail("openStream on a lost server succeeded")
        } catch {
            XCTAssertEqual(error.kind, .noAudioServer, error.message)
        }
        stream.stop()
    }

    // MARK: - Assembler

    func testAssemblerEmitsContiguous1024FrameBlocksWithSampleBufferTiming() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioMic, emit: sink.emit)
        var t: Int64 = 0
        for _ in 0..<10 {  // 10 chunks of 480 frames (10 ms), on time
            appendRamp(assembler, frames: 480, at: t)
            t += 10_000_000
        }
        assembler.finish()
        let blocks = sink.blocks
        XCTAssertEqual(assembler.framesWritten, 4800)
        XCTAssertEqual(blocks.map(\.frames), [1024, 1024, 1024, 1024, 704], "last block is shorter, not padded")
        XCTAssertEqual(blocks.map(\.start), [0, 1024, 2048, 3072, 4096])
        let first = sink.buffers[1]
        XCTAssertEqual(first.type, .audioMic)
        XCTAssertEqual(first.presentationTime, MediaTime(value: 1024, timescale: 48_000))
        XCTAssertEqual(first.duration, MediaTime(value: 1024, timescale: 48_000))
        XCTAssertEqual(first.formatDescription, .audio(.standard))
        XCTAssertEqual(sink.track.left, (0..<4800).map { Float($0 % 480) / 1000 }, "samples pass through in order")
    }

    func testAssemblerInsertsSilenceForAGap() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioApp, emit: sink.emit)
        appendConstant(assembler, 0.5, frames: 480, at: 0)
        appendConstant(assembler, 0.25, frames: 480, at: 110_000_000)  // 100 ms after the end at 10 ms
        assembler.finish()
        let left = sink.track.left
        XCTAssertEqual(left.count, 480 + 4800 + 480)
        XCTAssertTrue(left[0..<480].allSatisfy { $0 == 0.5 })
        XCTAssertTrue(left[480..<5280].allSatisfy { $0 == 0 }, "gap filled with silence")
        XCTAssertTrue(left[5280...].allSatisfy { $0 == 0.25 }, "chunk placed at its time")
    }

    func testAssemblerTrimsOverlapAndDropsChunksEntirelyInThePast() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioApp, emit: sink.emit)
        appendConstant(assembler, 0.5, frames: 4800, at: 0)                // 0–100 ms
        appendConstant(assembler, 0.1, frames: 480, at: 30_000_000)         // 30–40 ms: entirely past
        XCTAssertEqual(assembler.framesWritten, 4800)
        appendConstant(assembler, 0.25, frames: 2400, at: 80_000_000)       // 80–130 ms: 20 ms overlap
        assembler.finish()
        let left = sink.track.left
        XCTAssertEqual(left.count, 6240, "only the 30 ms after the track's end are kept")
        XCTAssertTrue(left[0..<4800].allSatisfy { $0 == 0.5 })
        XCTAssertTrue(left[4800...].allSatisfy { $0 == 0.25 })
    }

    func testAssemblerAbsorbsJitterWithin15Milliseconds() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioApp, emit: sink.emit)
        let jitterMs: [Int64] = [0, 7, -6, 14, -14, 3, 12, -9, 0, 5]
        for (i, jitter) in jitterMs.enumerated() {
            appendRamp(assembler, frames: 480, at: Int64(i) * 10_000_000 + jitter * 1_000_000)
        }
        assembler.finish()
        XCTAssertEqual(assembler.framesWritten, 4800, "nothing inserted or dropped")
        XCTAssertEqual(sink.track.left, (0..<4800).map { Float($0 % 480) / 1000 })
    }

    func testAssemblerTrimsFramesBeforeBroadcastStart() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioApp, emit: sink.emit)
        appendRamp(assembler, frames: 480, at: -5_000_000)   // first 240 frames before zero
        appendRamp(assembler, frames: 480, at: -20_000_000)  // entirely before zero
        assembler.finish()
        XCTAssertEqual(sink.track.left, (240..<480).map { Float($0) / 1000 })
    }

    func testFillSilenceExtendsTheTrackOnlyWhenItEndsEarlier() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioMic, emit: sink.emit)
        assembler.fillSilence(untilBroadcastTimeNs: 50_000_000)
        XCTAssertEqual(assembler.framesWritten, 2400)
        assembler.fillSilence(untilBroadcastTimeNs: 20_000_000)  // already covered
        XCTAssertEqual(assembler.framesWritten, 2400)
        appendConstant(assembler, 0.5, frames: 480, at: 20_000_000)  // inside the silence: dropped
        XCTAssertEqual(assembler.framesWritten, 2400)
        appendConstant(assembler, 0.5, frames: 480, at: 55_000_000)  // 5 ms late: appended at 50 ms
        XCTAssertEqual(assembler.framesWritten, 2880)
        assembler.finish()
        XCTAssertEqual(sink.blocks.map(\.start), [0, 1024, 2048])
        XCTAssertTrue(sink.track.left[0..<2400].allSatisfy { $0 == 0 })
        XCTAssertTrue(sink.track.left[2400...].allSatisfy { $0 == 0.5 })
    }

    func testAssemblerEmitsInOrderWhenFedFromSeveralThreads() {
        let sink = BlockSink()
        let assembler = AudioTrackAssembler(type: .audioApp, blockFrames: 256, emit: sink.emit)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<500 {
                if worker == 0 {
                    appendConstant(assembler, 0.5, frames: 480, at: Int64(i) * 10_000_000)
                } else {
                    assembler.fillSilence(untilBroadcastTimeNs: Int64(i) * 10_000_000 - 30_000_000)
                }
            }
        }
        assembler.finish()
        let blocks = sink.blocks
        XCTAssertEqual(blocks.map(\.start), blocks.indices.map { Int64($0) * 256 }, "blocks out of order or not contiguous")
        XCTAssertEqual(blocks.reduce(0) { $0 + Int64($1.frames) }, assembler.framesWritten)
    }

    func testAssemblerRecyclesBlockMemory() {
        let addresses = Mutex<Set<UInt>>([])
        let assembler = AudioTrackAssembler(type: .audioApp) { block in
            guard case .pcm(let pcm) = block.payload else { return }
            addresses.withLock { _ = $0.insert(UInt(bitPattern: pcm.buffer.bytes.baseAddress)) }
        }
        for i in 0..<1000 { appendConstant(assembler, 0.5, frames: 480, at: Int64(i) * 10_000_000) }
        XCTAssertLessThanOrEqual(addresses.withLock { $0.count }, 2, "blocks released right away should be reused")
    }

    // MARK: - Mixer

    func testMixerSumsMatchingBlocksWithClipping() {
        let out = BlockSink()
        let mixer = PCMMixer(emit: out.emit)
        mixer.add(constantBlock(.audioApp, 0.75, start: 0, frames: 1024))
        mixer.add(constantBlock(.audioApp, -0.25, start: 1024, frames: 1024))
        XCTAssertTrue(out.buffers.isEmpty, "nothing mixed before both tracks have a block")
        mixer.add(constantBlock(.audioMic, 0.5, start: 0, frames: 1024))
        mixer.add(constantBlock(.audioMic, -0.5, start: 1024, frames: 1024))
        mixer.add(constantBlock(.audioMic, 0.125, start: 2048, frames: 300))
        mixer.finish()
        XCTAssertEqual(out.blocks.map(\.start), [0, 1024, 2048])
        XCTAssertEqual(out.blocks.map(\.frames), [1024, 1024, 300])
        XCTAssertTrue(out.buffers.allSatisfy { $0.type == .audioMixed })
        let left = out.track.left
        XCTAssertTrue(left[0..<1024].allSatisfy { $0 == 1 }, "0.75 + 0.5 clips to 1")
        XCTAssertTrue(left[1024..<2048].allSatisfy { $0 == -0.75 })
        XCTAssertTrue(left[2048...].allSatisfy { $0 == 0.125 }, "a block left alone at finish passes through")
    }

    func testMixerPassesABlockThroughWhenItsPartnerCanNoLongerCome() {
        let out = BlockSink()
        let mixer = PCMMixer(emit: out.emit)
        mixer.add(constantBlock(.audioApp, 0.5, start: 0, frames: 1024))
        mixer.add(constantBlock(.audioApp, 0.5, start: 1024, frames: 1024))
        mixer.add(constantBlock(.audioMic, 0.25, start: 1024, frames: 1024))  // the mic never had frame 0
        mixer.add(constantBlock(.audioMic, 0.25, start: 2048, frames: 1024))
        XCTAssertEqual(out.blocks.map(\.start), [0, 1024], "app block 0 goes out alone, then 1024 is mixed")
        mixer.finish()
        XCTAssertEqual(out.blocks.map(\.start), [0, 1024, 2048])
        let left = out.track.left
        XCTAssertEqual([left[0], left[1024], left[2048]], [0.5, 0.75, 0.25])
    }

    /// Whatever the interleaving of two in-order tracks (one far ahead, then the other, in
    /// bursts), every block is mixed exactly once with its partner: the mix never loses a track.
    func testMixerPairsEveryBlockUnderAnyInterleaving() {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let out = BlockSink()
            let mixer = PCMMixer(emit: out.emit)
            let count = 200
            var next: [SampleBufferType: Int] = [.audioApp: 0, .audioMic: 0]
            while next[.audioApp]! < count || next[.audioMic]! < count {
                let type: SampleBufferType = next[.audioApp]! >= count ? .audioMic
                    : next[.audioMic]! >= count ? .audioApp : (Bool.random(using: &rng) ? .audioApp : .audioMic)
                for _ in 0..<Int.random(in: 1...12, using: &rng) where next[type]! < count {
                    let i = next[type]!
                    mixer.add(constantBlock(type, type == .audioApp ? 0.25 : 0.5, start: Int64(i * 1024), frames: 1024))
                    next[type] = i + 1
                }
            }
            mixer.finish()
            XCTAssertEqual(out.blocks.map(\.start), (0..<count).map { Int64($0 * 1024) }, "round \(round): each block once, in order")
            XCTAssertTrue(out.track.left.allSatisfy { $0 == 0.75 }, "round \(round): every block is the sum of both tracks")
        }
    }

    // MARK: - Helpers

    private func requirePulse() throws {
        guard let server = ProcessInfo.processInfo.environment["PULSE_SERVER"], !server.isEmpty else {
            throw XCTSkip("PULSE_SERVER is not set: no PulseAudio rig")
        }
    }
}

// MARK: - Test support

private func monotonicNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// A listening Unix socket at `path` that never accepts: a server that does not answer.
private func unixListener(_ path: String) throws -> Int32 {
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(fd, 8) == 0 else {
        close(fd)
        throw POSIXError(.EADDRINUSE)
    }
    return fd
}

/// Power of `frequency` in `samples` (Goertzel).
private func goertzelPower(_ samples: [Float], frequency: Double, sampleRate: Double) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
    var s1 = 0.0, s2 = 0.0
    for x in samples {
        let s0 = Double(x) + coefficient * s1 - s2
        s2 = s1
        s1 = s0
    }
    return s1 * s1 + s2 * s2 - coefficient * s1 * s2
}

private func appendRamp(_ assembler: AudioTrackAssembler, frames: Int, at ns: Int64) {
    let samples = (0..<frames).flatMap { [Float($0) / 1000, -Float($0) / 1000] }
    samples.withUnsafeBufferPointer { assembler.append($0, frameCount: frames, broadcastTimeNs: ns) }
}

private func appendConstant(_ assembler: AudioTrackAssembler, _ value: Float, frames: Int, at ns: Int64) {
    let samples = [Float](repeating: value, count: frames * 2)
    samples.withUnsafeBufferPointer { assembler.append($0, frameCount: frames, broadcastTimeNs: ns) }
}

private func constantBlock(_ type: SampleBufferType, _ value: Float, start: Int64, frames: Int) -> SampleBuffer {
    let samples = [Float](repeating: value, count: frames * 2)
    let buffer = samples.withUnsafeBytes { MediaBuffer(copying: $0) }
    return SampleBuffer(type: type, presentationTime: MediaTime(value: start, timescale: 48_000),
                        duration: MediaTime(value: Int64(frames), timescale: 48_000),
                        formatDescription: .audio(.standard),
                        payload: .pcm(PCMData(buffer: buffer, frameCount: frames, startFrame: start)))
}

/// Collects emitted blocks (keeping their samples) from any thread.
private final class BlockSink: Sendable {
    struct Block { var start: Int64; var frames: Int }
    struct Track { var left: [Float] = []; var blocks: [Block] = [] }
    private let state = Mutex<(buffers: [SampleBuffer], track: Track)>(([], Track()))

    var emit: @Sendable (SampleBuffer) -> Void { { [self] in self.record($0) } }

    private func record(_ buffer: SampleBuffer) {
        guard case .pcm(let pcm) = buffer.payload else { return }
        var left: [Float] = []
        left.reserveCapacity(pcm.frameCount)
        for i in 0..<pcm.frameCount {
            left.append(pcm.buffer.bytes.loadUnaligned(fromByteOffset: i * 8, as: Float.self))
        }
        state.withLock { s in
            s.buffers.append(buffer)
            s.track.left += left
            s.track.blocks.append(Block(start: pcm.startFrame, frames: pcm.frameCount))
        }
    }

    var buffers: [SampleBuffer] { state.withLock { $0.buffers } }
    var track: Track { state.withLock { $0.track } }
    var blocks: [Block] { track.blocks }
}

/// One capture: chunk timing as delivered, and the track assembled from it.
private final class CaptureProbe: Sendable {
    struct Chunk { var captureNs: UInt64; var deliveredNs: UInt64; var frames: Int }
    let assembler: AudioTrackAssembler
    private let sink = BlockSink()
    private let originNs: UInt64
    private let received = Mutex<[Chunk]>([])

    init(type: SampleBufferType, originNs: UInt64) {
        self.originNs = originNs
        assembler = AudioTrackAssembler(type: type, emit: sink.emit)
    }

    var deliver: @Sendable (UnsafeBufferPointer<Float>, Int, UInt64) -> Void {
        { [self] samples, frames, captureNs in
            let now = monotonicNs()
            received.withLock { $0.append(Chunk(captureNs: captureNs, deliveredNs: now, frames: frames)) }
            assembler.append(samples, frameCount: frames, broadcastTimeNs: Int64(captureNs) - Int64(originNs))
        }
    }

    var chunks: [Chunk] { received.withLock { $0 } }
    func track() -> BlockSink.Track { sink.track }
}

/// Lets a deliver closure reach the stream it belongs to.
private final class StreamHolder: Sendable {
    private let lock = Mutex<AudioCaptureStream?>(nil)
    var stream: AudioCaptureStream? {
        get { lock.withLock { $0 } }
        set { lock.withLock { $0 = newValue } }
    }
}

/// A throwaway PulseAudio daemon with one null sink, to be killed by a test.
private final class PrivatePulseDaemon {
    let server: String
    private let process = Process()
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rk-pulse-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        for sub in ["", "home", "xdg", "config"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let socket = directory.appendingPathComponent("pulse.sock").path
        server = "unix:" + socket
        guard let pulseaudio = ["/usr/bin/pulseaudio", "/bin/pulseaudio"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("pulseaudio is not installed")
        }
        process.executableURL = URL(fileURLWithPath: pulseaudio)
        process.arguments = ["-n", "--daemonize=no", "--exit-idle-time=-1", "--system=false", "--disallow-exit",
                             "--use-pid-file=no", "--log-target=file:" + directory.appendingPathComponent("pulse.log").path,
                             "-L", "module-null-sink sink_name=rk_private rate=48000",
                             "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socket)"]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.appendingPathComponent("home").path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("xdg").path
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["DBUS_SESSION_BUS_ADDRESS"] = "disabled:"
        environment["DISPLAY"] = nil
        environment["PULSE_SERVER"] = nil
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, process.isRunning else {
                kill()
                throw XCTSkip("the private PulseAudio daemon did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func kill() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A persistent placement error (chunks stamped 10 ms later than the track's end, as a source
/// whose first chunks came early, or a drifting sound card clock) is corrected once it passes
/// 5 ms, so audio does not keep a constant offset against the video.
final class AudioTrackReanchorTests: XCTestCase {
    func testAPersistentTenMillisecondErrorIsCorrected() {
        let a = AudioTrackAssembler(type: .audioApp) { _ in }
        let chunk = [Float](repeating: 0.1, count: 480 * 2)
        var t: Int64 = 0
        // 10 ms chunks, each stamped 10 ms after where the previous one ended: inside the 15 ms
        // tolerance, so without re-anchoring the track would stay 10 ms early for ever.
        for _ in 0..<120 {
            chunk.withUnsafeBufferPointer { a.append($0, frameCount: 480, broadcastTimeNs: t + 10_000_000) }
            t += 10_000_000
        }
        let expected = Int64(120 * 480 + 480)  // the 10 ms offset was added as silence
        XCTAssertEqual(a.framesWritten, expected, accuracy: 60)
        XCTAssertLessThan(abs(a.offsetNs), 5_000_000, "the measured offset is back under 5 ms")
    }
}
