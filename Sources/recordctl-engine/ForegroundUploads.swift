import Dispatch
import RecordCtlSupport
import RecordKitControl

/// Hands each finished file of a foreground `record --upload` (every split part as it closes,
/// the recording at stop) to the service's upload queue: the service owns the transfer, so it
/// goes on after this process exits (docs/UPLOADS.md). recordctl started the service and
/// checked the target before the recording began.
///
/// Threading: ``queue(_:)`` returns at once; the requests run one after the other on a serial
/// queue of their own (never the recorder's event thread); ``finish()`` waits for them.
final class ForegroundUploads: Sendable {
    private let options: UploadOptions?
    private let requests = DispatchQueue(label: "recordctl.uploads")

    /// Uploads to `options` (nil: nothing is uploaded).
    init(options: UploadOptions?) { self.options = options }

    /// Queues `path` for upload; a failure is said on stderr, never fails the recording.
    func queue(_ path: String) {
        guard let options else { return }
        requests.async {
            var o = CommandOptions()
            o.files = [path]
            o.upload = options
            do throws(ControlError) {
                let client = try ControlClient(paths: ServicePaths())
                for u in try client.request(.upload, options: o).uploads ?? [] {
                    Console.error("upload \(u.id) queued: \(u.path) -> \(u.target)")
                }
            } catch {
                Console.error("\(path) was not queued for upload: \(error.message); upload it with `recordctl upload \(path) --to TARGET`")
            }
        }
    }

    /// Waits until every file queued so far was handed to the service.
    func finish() { requests.sync {} }
}
