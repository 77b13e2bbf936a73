import Glibc
import RecordKit
import RecordKitCapture
import RecordKitSupport

/// The pacing thread of a ``PortalScreenCapture``: on each tick of the capture clock (1/fps, on
/// absolute `CLOCK_MONOTONIC` deadlines) it delivers every picture PipeWire brought since the
/// last tick, oldest first, or a repeat as ``FrameRateMode`` asks, and checks that the portal
/// session and the stream live.
///
/// A picture's slot is the tick nearest to its capture time (after the previous frame's), so
/// the compositor's timestamps, not the tick's wake-up, decide where a frame sits on the
/// timeline; two pictures that arrive within one tick take two slots. It owns the portal
/// session while it runs and closes it as it ends.
struct PortalFramePacer: Sendable {
    let receiver: PipeWireFrameReceiver
    let portal: PortalSession
    let counters: CaptureCounters
    let width: Int
    let height: Int
    let framesPerSecond: Int
    let mode: FrameRateMode
    let stop: @Sendable () -> Bool

    /// Runs until `stop()` or until the cast ends (then `onEnd` is called once with why).
    func run(deliver: @Sendable (CapturedFrame) -> Void, onEnd: (@Sendable (CaptureError) -> Void)?) {
        defer { portal.close() }
        let period = UInt64(1_000_000_000 / framesPerSecond)
        var next = MonotonicClock.nanoseconds()
        var origin: UInt64?
        var lastSlot: Int64 = -1
        var last: MediaBuffer?
        var lastDelivered: UInt64 = 0
        let firstFrameDeadline = next + 10_000_000_000
        var pictures: [PipeWireFrameReceiver.Picture] = []  // kept: taking pictures allocates nothing
        while !stop() {
            sleep(until: next)
            if stop() { return }
            if portal.pollClosed() {
                onEnd?(CaptureError(.portalError, "the portal's screen cast session was closed (the user or the compositor ended it)"))
                return
            }
            if let reason = receiver.endReason {
                onEnd?(CaptureError(.portalError, "the portal's screen cast ended: \(reason)"))
                return
            }
            let now = MonotonicClock.nanoseconds()
            // A stream that streams but brings no picture is a still screen: wlroots compositors
            // copy the output only when it changes, so a cast of an idle screen can wait for its
            // first picture indefinitely, and the recording waits with it. Not streaming after
            // 10 s is a stream nobody linked.
            if origin == nil, now > firstFrameDeadline, !receiver.hasStreamed {
                onEnd?(CaptureError(.portalError, "the portal's screen cast stream was not linked to the compositor within 10 s (is WirePlumber running?)"))
                return
            }
            receiver.takeAll(into: &pictures)
            let broughtPictures = !pictures.isEmpty
            for picture in pictures {
                let start = origin ?? picture.captureNs
                origin = start
                let nearest = Int64((Double(picture.captureNs &- min(picture.captureNs, start)) / Double(period)).rounded())
                let slot = max(nearest, lastSlot + 1)
                deliver(CapturedFrame(pixels: picture.picture, bytesPerRow: width * 4, width: width, height: height,
                                      captureTime: picture.captureNs, sequence: slot, scheduledTime: start + UInt64(slot) * period,
                                      isChanged: true, dirtyRects: lastSlot < 0 ? nil : picture.dirtyRects,
                                      previousSequence: lastSlot < 0 ? nil : lastSlot))
                counters.update { $0.captured += 1 }
                lastSlot = slot
                last = picture.picture
                lastDelivered = now
            }
            pictures.removeAll(keepingCapacity: true)  // their pool slots go back now, not a tick later
            if !broughtPictures, let previous = last, let start = origin {
                // Nothing new: a repeat at this tick when the mode wants one, unless a picture
                // of the tick before already took this tick's slot (two arrived within a tick).
                let slot = Int64((now &- start) / period)
                if slot > lastSlot, mode == .constant || now &- lastDelivered >= 500_000_000 {
                    deliver(CapturedFrame(pixels: previous, bytesPerRow: width * 4, width: width, height: height,
                                          captureTime: now, sequence: slot, scheduledTime: start + UInt64(slot) * period,
                                          isChanged: false, previousSequence: lastSlot))
                    counters.update {
                        $0.captured += 1
                        $0.repeatedFrames += 1
                    }
                    lastSlot = slot
                    lastDelivered = now
                } else {
                    counters.update { $0.unchangedTicks += 1 }
                }
            }
            next += period
            let after = MonotonicClock.nanoseconds()
            if after > next + period {
                let skipped = (after - next) / period
                next += skipped * period
                counters.update { $0.lateTicks += Int64(skipped) }
            }
        }
    }

    private func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
