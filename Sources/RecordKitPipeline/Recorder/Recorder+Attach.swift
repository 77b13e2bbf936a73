import Dispatch
import Glibc
import RecordKit
import RecordKitSupport

/// Outputs that come and go on a running capture, as ScreenCaptureKit's `addRecordingOutput`
/// and OBS's independent record, stream and replay buffer: one capture, and one encoder per
/// distinct setting, shared by every output that asks for it. An encoder starts with its first
/// output and stops with its last; an output attached to a running encoder starts at a key frame
/// the encoder is asked for at once (``VideoEncodeStage/requestKeyFrame(atOrAfter:)``), its times shifted
/// to start at zero (``OutputWindow``).
extension Recorder {
    /// Attaches `registrations` to the running capture (recording or paused). Each handler gets
    /// `broadcastStarted` with its streams' formats (encoders of routes no output had are opened
    /// now), then samples from its first key frame. Throws `invalidState` without a running
    /// capture; when a handler refuses, the ones attached by this call are detached and discarded.
    /// Returns the broadcast time (seconds) they were attached at: their streams start at the
    /// first key frame from then.
    @discardableResult
    package func attach(_ registrations: [HandlerRegistration]) throws(RecorderError) -> Double {
        let result: Result<Double, RecorderError> = control.sync {
            var attached: [HandlerRunner] = []
            var atNs: Int64 = 0
            for registration in registrations {
                do throws(RecorderError) {
                    let (runner, at) = try attachOnControlQueue(registration)
                    attached.append(runner)
                    atNs = at
                } catch {
                    for runner in attached { _ = detachOnControlQueue(runner, discard: true) }
                    return .failure(error)
                }
            }
            return .success(Double(atNs) / 1e9)
        }
        return try result.get()
    }

    /// Detaches the output named `name`: its stream ends now (what its encoders still hold up to
    /// now is delivered first: a wait of about the encoders' delay, at most 10 s and a key frame
    /// interval; none with `discard`), it gets `broadcastFinished` (after being told it is
    /// discarded, with `discard`: it deletes what it wrote), and encoders no other output uses stop.
    /// Returns its final snapshot and the broadcast time (seconds) it ended at. Throws
    /// `badArgument` for an unknown name and `invalidState` for the last output (stop the recording instead).
    package func detach(_ name: String, discard: Bool = false) throws(RecorderError) -> (report: HandlerRunReport, endSeconds: Double) {
        let result: Result<(report: HandlerRunReport, endSeconds: Double), RecorderError> = control.sync {
            guard state == .recording || state == .paused, let graph else {
                return .failure(RecorderError(.invalidState, "no capture is running"))
            }
            let runners = graph.dispatcher.runners
            guard let runner = runners.first(where: { $0.name == name }) else {
                return .failure(RecorderError(.badArgument, "no output named '\(name)'; the outputs are \(runners.map(\.name).joined(separator: ", "))"))
            }
            guard runners.count > 1 else {
                return .failure(RecorderError(.invalidState, "'\(name)' is the capture's last output: stop the recording instead"))
            }
            return .success(detachOnControlQueue(runner, discard: discard))
        }
        return try result.get()
    }

    /// Pauses the output named `name` alone: the capture and the other outputs go on. Throws
    /// `badArgument` for an unknown name, `invalidState` when it is paused already.
    package func pauseOutput(_ name: String) throws(RecorderError) {
        try onControl { () throws(RecorderError) in
            let runner = try runner(named: name)
            guard runner.pauseOutput(at: timeline.now(MonotonicClock.nanoseconds())) else {
                throw RecorderError(.invalidState, "output '\(name)' is already paused")
            }
        }
    }

    /// Resumes the output named `name` at a key frame its encoder is asked for now; its time goes
    /// on where it paused. Throws `invalidState` when it is not paused.
    package func resumeOutput(_ name: String) throws(RecorderError) {
        try onControl { () throws(RecorderError) in
            let runner = try runner(named: name)
            let atNs = timeline.now(MonotonicClock.nanoseconds())
            guard runner.resumeOutput(at: atNs) else {
                throw RecorderError(.invalidState, "output '\(name)' is not paused")
            }
            requestKeyFrames(for: runner, atOrAfter: atNs)
        }
    }

    private func runner(named name: String) throws(RecorderError) -> HandlerRunner {
        guard state == .recording || state == .paused, let graph else { throw RecorderError(.invalidState, "no capture is running") }
        guard let runner = graph.dispatcher.runners.first(where: { $0.name == name }) else {
            throw RecorderError(.badArgument, "no output named '\(name)'")
        }
        return runner
    }

    private func attachOnControlQueue(_ registration: HandlerRegistration) throws(RecorderError) -> (HandlerRunner, Int64) {
        guard state == .recording || state == .paused, let graph else { throw RecorderError(.invalidState, "no capture is running") }
        var available: Set<SampleBufferType> = [.video]
        available.formUnion(graph.audioTracks)
        if !graph.audioTracks.isEmpty { available.insert(.audioMixed) }
        // "Same as stream": a sharing output takes the video settings of the first output that does not share.
        let input = VideoEncodeSharing.apply(to: outputInputs.withLock { $0.map(\.input) } + [registration.handler.input]).last!
        let routes = Set(SampleRoute.routes(for: input, available: available))
        // Routes nobody takes yet: a running encoder of the same PCM and settings feeds them too
        // (one AAC encode per distinct input); the others get encoders of their own.
        let shared = graph.sharedAudioStages(for: routes.subtracting(graph.formats.keys))
        let fresh = routes.subtracting(graph.formats.keys).subtracting(shared.keys)
        let opened = fresh.isEmpty ? nil : try graph.encoderOpener.open(fresh, live: !input.toleratesEncoderDelay)
        let atNs = timeline.now(MonotonicClock.nanoseconds())
        let runner = attachedRunner(registration, routes: routes, atNs: atNs)
        var all = graph.formats
        for (route, stage) in shared { all[route] = .encoded(stage.format) }
        if let opened { all.merge(opened.encoders.formats) { _, new in new } }
        var formats: [SampleBufferType: FormatDescription] = [:]
        for route in routes { formats[route.type] = all[route] }
        let context = HandlerContext(runner: runner, formats: formats, workingDirectory: registration.workingDirectory, controlLink: controlLink)
        do {
            try runner.start(setupInfo: registration.setupInfo, context: context)
        } catch {
            if let opened {
                for stage in opened.encoders.videoStages { stage.finish(at: atNs) }
                for stage in opened.encoders.audioStages { stage.finish() }
            }
            let e = error as? BroadcastError ?? BroadcastError(.internalError, "\(error)")
            let kind: RecorderError.Kind = e.kind == .outputFailed ? .cannotCreateOutput : e.kind == .invalidSetup ? .badArgument : .failed
            throw RecorderError(kind, "\(registration.name): \(e.message)")
        }
        // The runner first, then the new encoders' sinks: their first packets (key frames) reach it.
        graph.dispatcher.add(runner, longerHolds: opened?.longerHolds ?? [:], shorterHolds: opened?.shorterHolds ?? [:])
        graph.add(context: context, encoders: opened?.encoders, routes: fresh, shared: shared)
        outputInputs.withLock { $0.append((registration.name, input)) }
        requestKeyFrames(for: runner, atOrAfter: atNs)
        return (runner, atNs)
    }

    /// Asks the video encoders `runner` takes for a key frame at broadcast time `atNs` (a running
    /// encoder would otherwise make it wait up to a key frame interval).
    private func requestKeyFrames(for runner: HandlerRunner, atOrAfter atNs: Int64) {
        for stage in graph?.videoStages ?? [] where runner.routes.contains(stage.route) { stage.requestKeyFrame(atOrAfter: atNs) }
    }

    private func detachOnControlQueue(_ runner: HandlerRunner, discard: Bool) -> (report: HandlerRunReport, endSeconds: Double) {
        guard let graph else { return (runner.snapshot, 0) }
        let endNs = timeline.now(MonotonicClock.nanoseconds())
        runner.cut(at: endNs)
        // Wait until every stream of the output reached the cut, so what its encoders held up to
        // now is in it: an encoder's look-ahead (about half a second), a spliced stream's GOP.
        // Bounded (10 s and a key frame interval: an encoder behind on a loaded machine catches
        // up well within it): a paused capture produces nothing, a failed encoder nothing more.
        // A discarded output waits for nothing: what its encoders still hold would be deleted.
        if state == .recording, !discard {
            let holds = runner.routes.compactMap { route -> Double? in
                guard case .video(.encoded(let settings)) = route else { return nil }
                return settings.keyFrameIntervalSeconds
            }.max() ?? 0
            let deadline = MonotonicClock.nanoseconds() + UInt64((10 + holds) * 1e9)
            while !runner.hasPassedCut, !runner.isEnded, MonotonicClock.nanoseconds() < deadline {
                graph.dispatcher.flush(for: runner)
                usleep(50_000)
            }
        }
        let unused = graph.dispatcher.remove(runner)
        let context = graph.contexts.first { $0.serves(runner) }
        if discard { context?.markDiscarding() }
        if let context { graph.remove(context: context, unused: unused, endNs: endNs) }
        let done = DispatchSemaphore(value: 0)
        runner.finish { done.signal() }
        done.wait()
        outputInputs.withLock { $0.removeAll { $0.name == runner.name } }
        return (runner.snapshot, Double(endNs) / 1e9)
    }
}
