import RecordKit
import RecordKitExtensions
import RecordKitPipeline

extension RecordingSession {
    /// Attaches the outputs `arguments` asks for (file, `--rtmp`, `--replay-buffer`,
    /// `--preview`, `--extension`) to the running capture (``Recorder/attach(_:)``): handlers come
    /// by name from the catalog of `builtins` as at start, named after the names in `taken` (the
    /// outputs this capture has or had, never reused), each with a working directory under
    /// `workingDirectory`. Returns them as the journal records them, and the recording's time
    /// (seconds) they were attached at. Throws `bad_argument` for
    /// no output, an unknown extension or a refused setup, `failed` when an encoder cannot open.
    func attach(arguments: StartArguments, builtins: [BuiltinExtension], workingDirectory: String?,
                taken: Set<String>) throws(ControlError) -> (handlers: [SessionJournal.Handler], atSeconds: Double) {
        let catalog = ExtensionCatalog.discover(builtins: builtins, extensionsDirectories: arguments.extensionsDirs)
        let resolution = try arguments.extensionRequests(catalog: catalog)
        // A source's options (`--camera`) are the capture's: a join may repeat them, not change them.
        var differences: [String] = []
        for (source, settings) in resolution.sourceSettings.sorted(by: { $0.key < $1.key }) {
            let options = StartArguments.sourceDeclarations.first { $0.name == source }?.commandLine.options ?? []
            for (key, value) in settings.sorted(by: { $0.key < $1.key }) where sourceSettings[source]?[key] != value {
                let spelling = options.first { $0.setup == key }.map { "--\($0.name)" } ?? "\(source) \(key)"
                differences.append("\(spelling) \(value) (the running capture: \(sourceSettings[source]?[key] ?? "none"))")
            }
        }
        guard differences.isEmpty else {
            throw ControlError(.busy, "the recording runs with other capture options: " + differences.joined(separator: ", ")
                               + ". A start while it runs adds outputs to the same capture; stop the recording first to record with other ones")
        }
        let requests = resolution.requests
        guard !requests.isEmpty else {
            throw ControlError(.badArgument, "nothing to add to the running recording: ask for an output (`recordctl start --help` lists them) or --extension")
        }
        let registrations: [HandlerRegistration]
        do throws(ExtensionError) {
            registrations = try catalog.registrations(for: requests, workingDirectories: workingDirectory, taken: taken)
        } catch {
            throw ControlError(.badArgument, error.message)
        }
        let atSeconds: Double
        do throws(RecorderError) { atSeconds = try recorder.attach(registrations) } catch { throw error.controlError }
        return (zip(requests, registrations).map { request, registration in
            SessionJournal.Handler(name: registration.name, extension: request.name, directory: registration.workingDirectory)
        }, atSeconds)
    }

    /// Detaches the output `name` (``Recorder/detach(_:discard:)``); returns its final report and
    /// the recording's time (seconds) it ended at.
    func detach(_ name: String, discard: Bool = false) throws(ControlError) -> (report: HandlerReport, endSeconds: Double) {
        do throws(RecorderError) {
            let (report, endSeconds) = try recorder.detach(name, discard: discard)
            return (HandlerReport(report), endSeconds)
        } catch {
            throw error.controlError
        }
    }

    /// Pauses the output `name` alone.
    func pauseOutput(_ name: String) throws(ControlError) {
        do throws(RecorderError) { try recorder.pauseOutput(name) } catch { throw error.controlError }
    }

    /// Resumes the output `name` at its next key frame.
    func resumeOutput(_ name: String) throws(ControlError) {
        do throws(RecorderError) { try recorder.resumeOutput(name) } catch { throw error.controlError }
    }
}
