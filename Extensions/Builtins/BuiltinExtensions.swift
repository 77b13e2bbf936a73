import FileUploadExtension
import Foundation
import PreviewExtension
import RecordKit
import RecordKitExtensions
import ReplayBufferExtension
import RTMPUploadExtension

/// The extensions built into recordctl and recordd (`Extensions/FileUpload`,
/// `Extensions/RTMPUpload` (`rtmp` and `srt`), `Extensions/ReplayBuffer`, `Extensions/Preview`), each through its own manifest, run in-process. This list is the
/// one place that names a concrete handler: the service and the command line take every
/// handler, built-in or not, from the catalog by name.
package enum BuiltinExtensions {
    /// Every built-in extension.
    package static let all: [BuiltinExtension] = [
        BuiltinExtension(manifestJSON: FileUploadManifest.json, target: FileUploadManifest.target,
                         input: FileUploadHandler(options: FileOutputOptions()).input,
                         recover: { directory throws(BroadcastError) in try FileUploadHandler.recover(workingDirectory: directory) }) {
            setup throws(BroadcastError) in try FileUploadManifest.handler(setup: setup)
        },
        BuiltinExtension(manifestJSON: RTMPUploadManifest.json, target: RTMPUploadManifest.target,
                         input: RTMPUploadHandler(options: RTMPOutputOptions(url: "")).input) {
            setup throws(BroadcastError) in try RTMPUploadManifest.handler(setup: setup)
        },
        BuiltinExtension(manifestJSON: SRTUploadManifest.json, target: SRTUploadManifest.target,
                         input: RTMPUploadHandler(options: RTMPOutputOptions(url: "")).input) {
            setup throws(BroadcastError) in try SRTUploadManifest.handler(setup: setup)
        },
        BuiltinExtension(manifestJSON: ReplayBufferManifest.json, target: ReplayBufferManifest.target,
                         input: ReplayBufferHandler(options: ReplayBufferOptions()).input) {
            setup throws(BroadcastError) in try ReplayBufferManifest.handler(setup: setup)
        },
        BuiltinExtension(manifestJSON: PreviewManifest.json, target: PreviewManifest.target,
                         input: PreviewHandler(options: PreviewOptions()).input) {
            setup throws(BroadcastError) in try PreviewManifest.handler(setup: setup)
        },
    ]

    /// The catalog: the built-in extensions, those in `extensionsDirectories`, and the user's.
    package static func catalog(extensionsDirectories: [String] = [],
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> ExtensionCatalog {
        ExtensionCatalog.discover(builtins: all, extensionsDirectories: extensionsDirectories, environment: environment)
    }
}
