import Foundation
import Glibc
import RecordKitControl

/// GetRecordStatus, GetStreamStatus and GetStats from the service's status.
extension OBSRecordKitRequests {
    /// GetRecordStatus: the file output's activity, pause, time and bytes.
    func recordStatus() -> OBSRequestResult {
        guard let r = recording(with: .record) else {
            return .success(["outputActive": false, "outputPaused": false, "outputTimecode": "00:00:00.000", "outputDuration": 0, "outputBytes": 0])
        }
        let file = r.recorder.handlers.first { OBSOutputKind.record.matches(handler: $0.name) }
        let ms = Int64((r.recorder.recordedSeconds * 1000).rounded())
        return .success(["outputActive": true, "outputPaused": .bool(r.state == "paused" || file?.paused == true), "outputTimecode": .string(Self.timecode(ms)),
                         "outputDuration": .int(ms), "outputBytes": .int(Int64(file?.statistics.bytesDelivered ?? 0))])
    }

    /// GetStreamStatus: the streams' activity, reconnection, time, bytes and frames.
    func streamStatus() -> OBSRequestResult {
        guard let r = recording(with: .stream) else {
            return .success(["outputActive": false, "outputReconnecting": false, "outputTimecode": "00:00:00.000", "outputDuration": 0,
                             "outputCongestion": 0, "outputBytes": 0, "outputSkippedFrames": 0, "outputTotalFrames": 0])
        }
        let streams = r.recorder.handlers.filter { OBSOutputKind.stream.matches(handler: $0.name) }
        let ms = Int64((r.recorder.recordedSeconds * 1000).rounded())
        return .success(["outputActive": true, "outputReconnecting": .bool(streams.contains { $0.serviceInfo["state"]?.hasPrefix("reconnecting") == true }),
                         "outputTimecode": .string(Self.timecode(ms)), "outputDuration": .int(ms), "outputCongestion": 0,
                         "outputBytes": .int(Int64(streams.map(\.statistics.bytesDelivered).reduce(0, +))),
                         "outputSkippedFrames": .int(Int64(streams.map(\.statistics.droppedVideo).reduce(0, +))),
                         "outputTotalFrames": .int(Int64(streams.map(\.statistics.delivered).reduce(0, +)))])
    }

    /// GetStats: memory, disk space and the capture's frame counters.
    func stats() -> OBSRequestResult {
        let r = status()?.recording
        let c = r?.recorder.capture
        var fs = statvfs()
        let disk = statvfs(settings.recordDirectory, &fs) == 0 ? Double(fs.f_bavail) * Double(fs.f_frsize) / 1_048_576 : 0
        return .success(["cpuUsage": 0, "memoryUsage": .double(Self.residentMegabytes()), "availableDiskSpace": .double(disk),
                         "activeFps": .double(c?.fps ?? 0), "averageFrameRenderTime": 0,
                         "renderSkippedFrames": .int(Int64(c?.framesDropped ?? 0)), "renderTotalFrames": .int(Int64(c?.framesCaptured ?? 0)),
                         "outputSkippedFrames": .int(Int64(c?.framesDropped ?? 0)), "outputTotalFrames": .int(Int64(c?.framesCaptured ?? 0)),
                         "webSocketSessionIncomingMessages": 0, "webSocketSessionOutgoingMessages": 0])
    }


    /// The process's resident memory in MiB (`/proc/self/statm`), for GetStats.
    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
