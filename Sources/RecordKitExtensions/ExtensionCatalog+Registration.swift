import Foundation
import RecordKit
import RecordKitPipeline

extension ExtensionCatalog {
    /// The handler registrations for `requests`, in order, with every setup value checked
    /// against its manifest. The first request of an extension is registered under its name,
    /// later ones as `name-2`, `name-3`, …, skipping the names in `taken` (the outputs a running
    /// capture has or had, when these attach to it). With `workingDirectories`, each handler
    /// gets its own directory under it, named as the registration (created 0700). Nothing is
    /// started: a failure here means the recording must not start (unknown extension, broken
    /// extension, bad setup).
    package func registrations(for requests: [ExtensionRequest], workingDirectories: String? = nil,
                               taken: Set<String> = []) throws(ExtensionError) -> [HandlerRegistration] {
        var used = taken
        var result: [HandlerRegistration] = []
        for request in requests {
            var registration = try registration(for: request)
            var n = 1
            registration.name = request.name
            while used.contains(registration.name) {
                n += 1
                registration.name = "\(request.name)-\(n)"
            }
            used.insert(registration.name)
            if let workingDirectories {
                let directory = workingDirectories + "/" + registration.name
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                            attributes: [.posixPermissions: 0o700])
                } catch {
                    throw ExtensionError(.invalidSetup, "cannot create the working directory \(directory): \(error.localizedDescription)")
                }
                registration.workingDirectory = directory
            }
            result.append(registration)
        }
        return result
    }

    /// The handler registration for one request.
    package func registration(for request: ExtensionRequest) throws(ExtensionError) -> HandlerRegistration {
        guard let entry = entry(named: request.name) else {
            let known = usableNames
            throw ExtensionError(.unknownExtension, "no extension named '\(request.name)'"
                + (known.isEmpty ? "" : "; available: \(known.joined(separator: ", "))") + " (see `recordctl extensions`)")
        }
        switch entry.state {
        case .broken(let reason):
            throw ExtensionError(.brokenExtension, "extension '\(request.name)' cannot load: \(reason)")
        case .usable(let manifest, let executable):
            let setup = try manifest.validatedSetup(request.setup)
            let handler: any BroadcastSampleHandler
            if let executable {
                handler = ExtensionProcessHandler(manifest: manifest, executable: executable, directory: entry.directory ?? "/")
            } else if let builtin = builtins[manifest.name] {
                do throws(BroadcastError) { handler = try builtin.makeHandler(setup) } catch {
                    throw ExtensionError(.invalidSetup, "extension '\(request.name)': \(error.message)")
                }
            } else {
                throw ExtensionError(.brokenExtension, "extension '\(request.name)' has no implementation")
            }
            return HandlerRegistration(name: manifest.name, handler: handler, setupInfo: setup)
        }
    }

    /// Runs the recovery hook of extension `name` on a working directory an interrupted
    /// recording left. Returns what it delivered; nil when the extension has no hook (or is
    /// not in the catalog any more). Throws the hook's error.
    package func recover(extension name: String, workingDirectory: String) throws(BroadcastError) -> [String]? {
        guard let hook = builtins[name]?.recover else { return nil }
        return try hook(workingDirectory)
    }
}
