import Synchronization

/// The cameras recordings can use: listers by API ("v4l2" always; "pipewire" once
/// RecordKitPipeWire registers it) and one opener (PipeWire's). The pipeline never names a
/// concrete camera API. Thread-safe; register before recordings start.
package enum CameraSourceRegistry {
    /// Lists the cameras one API sees; throws when that API cannot be asked (no daemon).
    package typealias Lister = @Sendable () throws(CaptureError) -> [CameraInfo]
    /// Opens the camera `name` (nil: the first one) at up to `framesPerSecond`.
    package typealias Opener = @Sendable (_ name: String?, _ framesPerSecond: Int) throws(CaptureError) -> any CameraSource

    private static let listers = Mutex<[(String, Lister)]>([("v4l2", { () throws(CaptureError) -> [CameraInfo] in V4L2Devices.list() })])
    private static let opener = Mutex<Opener?>(nil)

    /// Adds (or replaces) the lister of `api`, and makes `open` the camera opener when given.
    package static func register(_ api: String, list: @escaping Lister, open: Opener? = nil) {
        listers.withLock { l in
            l.removeAll { $0.0 == api }
            l.insert((api, list), at: 0)
        }
        if let open { opener.withLock { $0 = open } }
    }

    /// Every camera of every API, and for each API that could not be asked why.
    package static func list() -> (cameras: [CameraInfo], problems: [String]) {
        var cameras: [CameraInfo] = []
        var problems: [String] = []
        for (api, lister) in listers.withLock({ $0 }) {
            do throws(CaptureError) { cameras += try lister() } catch { problems.append("\(api): \(error.message)") }
        }
        return (cameras, problems)
    }

    /// Opens camera `name` (nil or empty: the first recordable one).
    /// - Throws: `.cameraNotFound`, `.cameraUnavailable`.
    package static func open(_ name: String?, framesPerSecond: Int) throws(CaptureError) -> any CameraSource {
        guard let open = opener.withLock({ $0 }) else {
            throw CaptureError(.cameraUnavailable, "this build has no camera support (PipeWire)")
        }
        return try open(name.flatMap { $0.isEmpty ? nil : $0 }, framesPerSecond)
    }
}
