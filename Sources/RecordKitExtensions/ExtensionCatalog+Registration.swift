import RecordKit
import RecordKitPipeline

extension ExtensionCatalog {
    /// The handler registrations for `requests`, in order, with every setup value checked
    /// against its manifest. Nothing is started: a failure here means the recording must not
    /// start (unknown extension, broken extension, bad setup).
    public func registrations(for requests: [ExtensionRequest]) throws(ExtensionError) -> [HandlerRegistration] {
        var result: [HandlerRegistration] = []
        var used: [String: Int] = [:]
        for request in requests {
            var registration = try registration(for: request)
            used[request.name, default: 0] += 1
            if let n = used[request.name], n > 1 { registration.name = "\(request.name)-\(n)" }
            result.append(registration)
        }
        return result
    }

    /// The handler registration for one request.
    public func registration(for request: ExtensionRequest) throws(ExtensionError) -> HandlerRegistration {
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
}
