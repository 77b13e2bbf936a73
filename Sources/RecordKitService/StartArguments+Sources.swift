import RecordKitCapture
import RecordKitExtensions
import RecordKitPipeline

extension StartArguments {
    /// Applies the capture sources' settings (their declared options, resolved: ``OptionResolver/Resolution/sourceSettings``)
    /// as the pipeline reads them (``RecordingConfiguration/applySourceSettings(_:)``): the service
    /// names no source's setting. Malformed values are `bad_argument`.
    func applySourceSettings(_ settings: [String: [String: String]], to configuration: inout RecordingConfiguration) throws(ControlError) {
        do throws(RecorderError) {
            try configuration.applySourceSettings(settings)
        } catch {
            throw error.controlError
        }
    }

    /// The capture sources' declarations this process registered (``CaptureSourceDeclarations``), parsed.
    static var sourceDeclarations: [ExtensionManifest] { CaptureSourceManifest.parseAll(CaptureSourceDeclarations.all) }

    /// Each capture source's config key (its option's name) with the default its declaration
    /// gives the setup key the option feeds (`(not set)` for an empty one), in declaration order:
    /// what `recordctl config show` lists for the keys a file does not set.
    package static var sourceKeyDefaults: [(key: String, value: String)] {
        sourceDeclarations.flatMap { source in
            source.commandLine.options.map { option in
                let value = option.setup.flatMap { source.setupKey($0)?.defaultValue } ?? ""
                return (option.name, value.isEmpty ? "(not set)" : value)
            }
        }
    }

    /// A resolver for these arguments' options: the catalog's extensions and the capture sources.
    static func resolver(catalog: ExtensionCatalog) -> OptionResolver {
        OptionResolver(catalog: catalog, sources: sourceDeclarations)
    }
}

/// Damage-driven capture counters in `recordctl status`.
package typealias DamageCounters = DamageStatus
/// One RandR monitor in `recordctl monitors`.
package typealias MonitorEntry = DisplayMonitor
/// Applications, sinks and sources in `recordctl audio-sources`.
package typealias AudioSourcesEntry = AudioSourceInventory

/// One camera in `recordctl cameras`.
package typealias CameraEntry = CameraDevice

/// The display's monitors and the audio server's sources, for `recordctl monitors` and
/// `recordctl audio-sources`.
package enum SourceListing {
    /// Every camera (PipeWire's camera nodes, V4L2 devices), and why an API could not be asked.
    package static func cameras() -> (cameras: [CameraEntry], problems: [String]) { CaptureSources.cameras() }

    /// The RandR monitors of `display`; `unavailable` without the display.
    package static func monitors(display: String?) throws(ControlError) -> [MonitorEntry] {
        do throws(RecorderError) { return try CaptureSources.monitors(display: display) } catch { throw error.controlError }
    }

    /// Applications playing, sinks and sources of `server`; `unavailable` without a server.
    package static func audioSources(server: String?) throws(ControlError) -> AudioSourcesEntry {
        do throws(RecorderError) { return try CaptureSources.audioSources(server: server) } catch { throw error.controlError }
    }
}
