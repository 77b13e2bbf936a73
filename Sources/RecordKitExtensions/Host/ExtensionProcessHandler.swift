import RecordKit
import Synchronization

/// A broadcast handler that runs an extension's executable in its own process and speaks the
/// extension protocol with it (docs/EXTENSIONS.md): the recorder calls this object serially, as
/// any handler, and it forwards each call and waits for the extension's answer.
///
/// Isolation: an extension that crashes, exits, takes longer than `limits.callTimeoutMs` in a
/// call, goes over `limits.memoryMB` of private memory, or writes anything but valid protocol
/// messages is killed, and this handler's broadcast is ended with an error that says which and
/// why (``BroadcastContext/finishBroadcast(with:)``); the recording and every other handler go
/// on. While it waits for the extension, this handler's queue fills and the recorder drops video
/// for it alone, as for any slow handler; capture never waits.
///
/// Payloads reach the extension through shared memory: capture frames are lent in place (the
/// capture pool is a System V segment the extension attaches), everything else is copied once
/// into memfd slots. The costs are published in service info at the end
/// (`hostDeliveryCPUSeconds`, `framesLent`, `bytesCopied`, `extensionCPUSeconds`…).
package final class ExtensionProcessHandler: BroadcastSampleHandler {
    /// The extension's manifest.
    package let manifest: ExtensionManifest
    /// The absolute path of its executable.
    package let executable: String
    /// Its directory (given to the process as `RECORDKIT_EXTENSION_DIR`).
    package let directory: String
    private let supervisor = ExtensionSupervisor()
    private var session: ExtensionSession?
    private var context: BroadcastContext?

    /// A handler for the extension `manifest` describes, whose program is `executable`.
    package init(manifest: ExtensionManifest, executable: String, directory: String) {
        self.manifest = manifest
        self.executable = executable
        self.directory = directory
    }

    /// The manifest's input.
    package var input: HandlerInput { manifest.input }

    /// Starts the process, completes the handshake and forwards the call; throws when the
    /// extension refuses or fails to start.
    package func broadcastStarted(setupInfo: SetupInfo, context: BroadcastContext) throws {
        let session = try ExtensionLauncher.launch(manifest: manifest, executable: executable, directory: directory, supervisor: supervisor)
        try session.start(setup: setupInfo, context: context)
        self.session = session
        self.context = context
    }

    /// Forwards one sample and waits for the extension's answer (within `limits.callTimeoutMs`).
    package func processSampleBuffer(_ sampleBuffer: SampleBuffer, with type: SampleBufferType) {
        session?.deliver(sampleBuffer)
    }

    /// Forwards `broadcastPaused`.
    package func broadcastPaused() { session?.lifecycle(.paused, name: "broadcastPaused") }

    /// Forwards `broadcastResumed`.
    package func broadcastResumed() { session?.lifecycle(.resumed, name: "broadcastResumed") }

    /// Forwards `broadcastAnnotated` to an extension that accepted markers (the feature
    /// `annotations`); others never see them.
    package func broadcastAnnotated(_ annotation: BroadcastAnnotation) {
        guard let session, session.takesAnnotations else { return }
        session.lifecycle(.annotated(annotation), name: "broadcastAnnotated")
    }

    /// Forwards `broadcastFinished`, ends the process and publishes what delivery cost.
    package func broadcastFinished() {
        guard let session else { return }
        self.session = nil
        let cpu = session.finish(discarding: context?.isDiscarding ?? false)
        context?.publish(serviceInfo: session.statistics.serviceInfo(extensionCPUSeconds: cpu))
        context = nil
    }
}
