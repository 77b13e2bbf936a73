import Foundation
import RecordKit
import RecordKitExtensions
import RecordKitPipeline

/// The recorder's lifecycle state, as the service and the command line name it.
package typealias RecordingState = RecorderState
/// A snapshot of a recording.
package typealias RecordingStatus = RecorderStatus
/// One lifecycle event of a recording.
package typealias RecordingEvent = RecorderEvent
/// A snapshot of one handler.
package typealias HandlerReport = HandlerSnapshot
/// Why a recording could not start or failed.
package typealias RecordingError = RecorderError

/// One recording described by ``StartArguments``, built the same way for `recordd` and for
/// `recordctl record`: the capture configuration from the arguments, and every handler (the
/// file, each RTMP endpoint, each `--extension`) requested by name from the one extension
/// catalog, so neither the service nor the command line knows a concrete handler.
///
/// Threading: as ``Recorder``: any thread; lifecycle calls are serialized by the recorder.
package final class RecordingSession: Sendable {
    let recorder: Recorder
    /// The handlers, as the journal records them: registration name, extension name, working directory.
    package let handlers: [SessionJournal.Handler]
    /// What resolving the output options found worth telling the user (a key file others can read).
    package let optionWarnings: [String]
    /// The capture sources' settings the capture runs with (their declared options, resolved).
    let sourceSettings: [String: [String: String]]

    /// Builds the recording; nothing runs before ``start()``. Handlers come by name from the
    /// catalog made of `builtins` (the extensions the executable links: the service links none)
    /// and the extension directories. With `workingDirectory`, every handler gets a directory of
    /// its own under it (`<dir>/<handler>`), which a later recovery hands back to its extension.
    /// Throws `bad_argument` for malformed arguments, an unknown or broken extension, or a bad
    /// setup value.
    package init(arguments: StartArguments, builtins: [BuiltinExtension], workingDirectory: String? = nil,
                onEvent: @escaping @Sendable (RecordingEvent) -> Void = { _ in }) throws(ControlError) {
        let catalog = ExtensionCatalog.discover(builtins: builtins, extensionsDirectories: arguments.extensionsDirs)
        let resolution = try arguments.extensionRequests(catalog: catalog)
        let configuration = try arguments.recordingConfiguration(sourceSettings: resolution.sourceSettings)
        let requests = resolution.requests
        guard !requests.isEmpty else {
            throw ControlError(.badArgument, "nothing to record into: ask for an output (`recordctl record --help` lists them) or --extension")
        }
        let registrations: [HandlerRegistration]
        do throws(ExtensionError) {
            registrations = try catalog.registrations(for: requests, workingDirectories: workingDirectory)
        } catch {
            throw ControlError(.badArgument, error.message)
        }
        self.handlers = zip(requests, registrations).map { request, registration in
            SessionJournal.Handler(name: registration.name, extension: request.name, directory: registration.workingDirectory)
        }
        self.optionWarnings = resolution.warnings
        self.sourceSettings = resolution.sourceSettings
        self.recorder = Recorder(configuration: configuration, handlers: registrations, onEvent: onEvent)
        // Handlers that show the status (the preview page) get it in the control protocol's form.
        recorder.setStatusEncoder { snapshot in
            let encoder = JSONEncoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            return (try? Array(encoder.encode(RecordingStatus(snapshot)))) ?? Array("{}".utf8)
        }
    }

    /// Starts recording (see ``Recorder/start()``); returns once capture runs.
    package func start() throws(ControlError) {
        do throws(RecorderError) { try recorder.start() } catch { throw error.controlError }
    }

    /// Blocks until the first frame was captured (or `timeout` seconds passed); true if it was.
    package func waitForFirstFrame(timeout: Double) -> Bool { recorder.waitForFirstFrame(timeout: timeout) }

    /// Pauses at the user's request.
    package func pause() throws(ControlError) {
        do throws(RecorderError) { try recorder.pause(reason: "user") } catch { throw error.controlError }
    }

    /// Resumes; refused while the background holds the pause.
    package func resume() throws(ControlError) {
        do throws(RecorderError) { try recorder.resume(reason: "user") } catch { throw error.controlError }
    }

    /// Stops and finalizes every handler; returns their reports.
    @discardableResult
    package func stop(reason: String = "user") -> [HandlerReport] { recorder.stop(reason: reason).map(HandlerReport.init) }

    /// Stops and deletes everything the handlers wrote; returns their reports.
    @discardableResult
    package func discard() -> [HandlerReport] { recorder.discard(reason: "user").map(HandlerReport.init) }

    /// The current state.
    package var state: RecordingState { recorder.state }

    /// A snapshot (never waits for a lifecycle change).
    package var status: RecordingStatus { RecordingStatus(recorder.status) }
}
