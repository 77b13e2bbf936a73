import ArgumentParser
import RecordCtlSupport
import RecordKitControl

/// `--preview` and `--preview-port`, shared by `record` and `start`: add the `preview`
/// extension, a page on 127.0.0.1 that shows the recording live and then reviews it
/// (docs/PREVIEW.md). It is requested by name from the catalog, like any extension.
struct PreviewFlagOptions: ParsableArguments {
    @Flag(name: .customLong("preview"),
          help: "Show the recording live in a local web page (127.0.0.1, secret token; no extra encode), then review it there. `recordctl preview` prints its URL.")
    var enabled = false

    @Option(name: .customLong("preview-port"),
            help: ArgumentHelp("The page's TCP port on 127.0.0.1 (default: a free one).", valueName: "PORT"))
    var port: Int?

    func validate() throws {
        if let port, !(1...65_535).contains(port) { throw ValidationError("--preview-port must be between 1 and 65535, got \(port)") }
        if port != nil && !enabled { throw ValidationError("--preview-port needs --preview") }
    }

    /// The `preview` extension's request these options stand for, as `--extension preview
    /// --setup port=N` would make it (none without `--preview`).
    func apply(to arguments: inout StartArguments) throws(ControlError) {
        guard enabled else { return }
        arguments.extensions += try StartArguments.extensionRequests(names: ["preview"], setup: ["port=\(port ?? 0)"])
    }
}

/// The preview page's URL in a status: the `url` a handler published that is a page on this
/// machine (`http://127.0.0.1:…`), while recording; after stop, the last recording's output that is one.
func previewURL(in status: ServiceStatus) -> String? {
    if let recording = status.recording {
        return recording.recorder.handlers.lazy.compactMap { $0.serviceInfo["url"] }.first(where: isPreviewURL)
    }
    return status.last?.outputs.first(where: isPreviewURL)
}

private func isPreviewURL(_ text: String) -> Bool { text.hasPrefix("http://127.0.0.1:") }
