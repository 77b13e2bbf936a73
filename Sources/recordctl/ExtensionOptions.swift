import ArgumentParser
import Foundation
import RecordKitExtensions
import RecordKitPipeline
import RecordKitService

/// `--extension`, `--setup` and `--extensions-dir`: shared by `record` and `start`.
struct ExtensionOptions: ParsableArguments {
    @Option(name: .customLong("extension"),
            help: ArgumentHelp("Also feed the recording to this extension (repeatable; `recordctl extensions` lists them).", valueName: "NAME"))
    var extensions: [String] = []

    @Option(name: .customLong("setup"),
            help: ArgumentHelp("A setup value for the extension, checked against its manifest before recording starts; with several --extension, NAME:key=value (repeatable).",
                               valueName: "KEY=VALUE"))
    var setup: [String] = []

    @Option(name: .customLong("extensions-dir"),
            help: ArgumentHelp("Also look for extensions here: a directory of extension directories, or one extension's directory (repeatable).",
                               valueName: "DIR"))
    var extensionsDirs: [String] = []

    /// `--extensions-dir` values as absolute paths (the service runs elsewhere).
    var absoluteExtensionsDirs: [String] {
        extensionsDirs.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
    }

    /// The requests: each `--extension` with the `--setup` values meant for it.
    func requests() throws(ExtensionError) -> [ExtensionRequest] {
        var requests = extensions.map { ExtensionRequest(name: $0) }
        if !setup.isEmpty && requests.isEmpty {
            throw ExtensionError(.invalidSetup, "--setup needs an --extension to apply to")
        }
        for argument in setup {
            guard let eq = argument.firstIndex(of: "=") else {
                throw ExtensionError(.invalidSetup, "--setup \(argument): expected key=value")
            }
            var key = String(argument[..<eq])
            let value = String(argument[argument.index(after: eq)...])
            var target: Int?
            if let colon = key.firstIndex(of: ":") {
                let name = String(key[..<colon])
                key = String(key[key.index(after: colon)...])
                target = requests.firstIndex { $0.name == name }
                guard target != nil else {
                    throw ExtensionError(.invalidSetup, "--setup \(argument): '\(name)' is not one of the --extension names")
                }
            } else if requests.count == 1 {
                target = 0
            } else {
                throw ExtensionError(.invalidSetup, "--setup \(argument): with several --extension, say which one: NAME:\(argument)")
            }
            guard !key.isEmpty else { throw ExtensionError(.invalidSetup, "--setup \(argument): the key is empty") }
            requests[target!].setup[key] = value
        }
        return requests
    }

    /// The handler registrations, every setup value checked; on any problem it prints it and
    /// exits with the usage code (64) before anything is recorded.
    func registrations() throws -> [HandlerRegistration] {
        try resolved().registrations
    }

    /// The requests, checked as ``registrations()`` checks them (for the service, which checks
    /// them again where it runs).
    func checkedRequests() throws -> [ExtensionRequest] {
        try resolved().requests
    }

    private func resolved() throws -> (requests: [ExtensionRequest], registrations: [HandlerRegistration]) {
        do throws(ExtensionError) {
            let requests = try requests()
            if requests.isEmpty { return ([], []) }
            return (requests, try BuiltinExtensions.catalog(extensionsDirectories: absoluteExtensionsDirs).registrations(for: requests))
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.usage)
        }
    }
}
