import Foundation
import RecordKitControl

/// What `recordctl` hands `recordctl-engine` for a verb that runs in process: the
/// verb with everything recordctl already parsed and checked, so the engine parses no command
/// line and prints nothing recordctl would not have printed itself.
///
/// It travels as JSON in the environment variable ``environmentKey`` (not in argv, which any
/// user can read in `ps`: a `record --rtmp` request holds the stream key from
/// `--rtmp-key-file`); the engine removes it from its environment before doing anything else.
package enum EngineRequest: Codable, Sendable, Equatable {
    /// `recordctl record`: these start arguments, for `duration` seconds of recorded time (nil: until a signal).
    case record(StartArguments, duration: Double?)
    /// `recordctl trim`: cut `file` to [`start`, `end`) seconds into `output` (absolute paths).
    case trim(file: String, start: Double, end: Double, output: String, overwrite: Bool)
    /// `recordctl extensions`: list them, also from `directories` (absolute), as JSON or text.
    case extensions(directories: [String], json: Bool)
    /// `recordctl record --help` and `start --help`: the options the catalog's extensions declare
    /// (also those in `directories`, absolute), printed after recordctl's own.
    case outputOptionsHelp(directories: [String])
    /// `recordctl config check`: the output options the config file sets (top level and every
    /// profile), checked against the catalog's declarations; `checked` lists the files recordctl
    /// already found fine, printed with "ok" when these are too.
    case checkConfig(options: [ConfiguredOption], checked: [String])
    /// `recordctl config show`, its last lines: the capture sources' keys the config file does not
    /// set (`set`: the keys it sets for the profile in use), with their declared defaults.
    case sourceKeyDefaults(set: [String])
    /// `recordctl monitors`: the RandR monitors of `$DISPLAY`.
    case monitors(json: Bool)
    /// `recordctl audio-sources`: the applications, sinks and sources of `$PULSE_SERVER`.
    case audioSources(json: Bool)
    /// `recordctl cameras`: PipeWire's camera nodes and the V4L2 devices.
    case cameras(json: Bool)

    /// The environment variable that carries the request.
    package static let environmentKey = "RECORDCTL_ENGINE_REQUEST"
    /// The engine's file name; recordctl runs it from its own directory.
    package static let engineName = "recordctl-engine"

    /// The verb, as the engine's `argv[1]` shows it in `ps`.
    package var verb: String {
        switch self {
        case .record: return "record"
        case .trim: return "trim"
        case .extensions: return "extensions"
        case .outputOptionsHelp: return "options-help"
        case .checkConfig: return "config-check"
        case .sourceKeyDefaults: return "config-defaults"
        case .monitors: return "monitors"
        case .audioSources: return "audio-sources"
        case .cameras: return "cameras"
        }
    }

    /// The request as the JSON text put in the environment.
    package func encoded() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    /// Decodes the request from its JSON text.
    package static func decode(_ text: String) throws -> EngineRequest {
        try JSONDecoder().decode(EngineRequest.self, from: Data(text.utf8))
    }
}
