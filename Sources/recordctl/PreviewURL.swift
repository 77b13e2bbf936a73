import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// The preview page's URL in a status: the `url` a handler published that is a page on this
/// machine (`http://127.0.0.1:…`), while recording (with `outputs`, only one those outputs
/// published); after stop, the last recording's output that is one.
func previewURL(in status: ServiceStatus, among outputs: [String]? = nil) -> String? {
    if let recording = status.recording {
        return recording.recorder.handlers.lazy.filter { outputs?.contains($0.name) ?? true }
            .compactMap { $0.serviceInfo["url"] }.first(where: isPreviewURL)
    }
    return status.last?.outputs.first(where: isPreviewURL)
}

private func isPreviewURL(_ text: String) -> Bool { text.hasPrefix("http://127.0.0.1:") }
