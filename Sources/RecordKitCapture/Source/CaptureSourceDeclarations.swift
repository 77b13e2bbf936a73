import Synchronization

/// What each capture source declares about its command-line options and config keys: a JSON
/// document in its own folder, in the extension manifest's format (`name`, `version`,
/// `description`, `entry`, `setup`, `commandLine`; docs/EXTENSIONS.md, "Command-line options"),
/// every option a `setting` of one of its setup keys. `recordctl record`/`start` forward those
/// options, the service and recordctl-engine resolve them against these declarations
/// (`OptionResolver`), `--help` lists them, and the config file takes each under its name; the
/// resolved values reach the source as its settings (`RecordingConfiguration.sourceSettings`).
///
/// Built in: "screen" (what every video source records, and which one: `Screen/screen-source.json`),
/// "pulse" (the audio source, `Audio/pulse-source.json`) and "camera" (`Camera/camera-source.json`). A source in another module registers its
/// declaration with its factory (`VideoSourceRegistry.register(_:declaration:monitors:factory:)`).
/// Thread-safe; register before recordings start.
package enum CaptureSourceDeclarations {
    private static let registered = Mutex<[(name: String, json: [UInt8])]>([
        ("screen", PackageResources.screen_source_json),
        ("pulse", PackageResources.pulse_source_json),
        ("camera", PackageResources.camera_source_json),
    ])

    /// Makes `json` the declaration of source `name` (replacing an earlier one).
    package static func register(_ name: String, json: [UInt8]) {
        registered.withLock { list in
            if let i = list.firstIndex(where: { $0.name == name }) { list[i].json = json } else { list.append((name, json)) }
        }
    }

    /// Every declaration (UTF-8 JSON), in registration order.
    package static var all: [(name: String, json: [UInt8])] { registered.withLock { $0 } }
}
