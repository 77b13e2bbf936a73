import Foundation

/// docs/ARCHITECTURE.md's "Parts" table and its "never" rules, checked against what the package really
/// declares (`swift package dump-package`) and what each target's Swift files import.
struct DependencyRules {
    /// One target: its declared dependencies and the modules its files import.
    struct Target {
        var name: String
        var dependencies: Set<String>
        var imports: Set<String>
        /// A test target (`.testTarget`): it may use anything it tests, and is not in the table.
        var isTest = false
        /// The string literals of its code that spell an option (`"--rtmp"`), comments left out.
        var optionLiterals: Set<String> = []
        /// Every spelling of an option in its code, in any form, by type (the thin command line's check).
        var spellings = OptionSpellings()
    }

    /// The built-in upload handlers (`Extensions/`): nobody but the list of built-ins may name them.
    static let handlers: Set<String> = ["FileUploadExtension", "RTMPUploadExtension", "ReplayBufferExtension", "PreviewExtension"]
    /// The parts that must not spell a handler's command-line option (`"--rtmp"`): the handlers'
    /// manifests declare them and the service resolves them from the catalog.
    static let optionFree: Set<String> = ["RecordKitService", "RecordKitControl", "RecordCtlSupport", "recordctl", "recordctl-engine", "recordd"]
    /// The command-line binaries and what they share: they must not spell a declared option in any
    /// form (a literal, a token in a message or help text, a bare name, an ArgumentParser property
    /// that derives it), except a verb's own option of the same spelling (`stop --output`).
    static let commandLine: Set<String> = ["RecordCtlSupport", "recordctl", "recordctl-engine"]
    /// The types that parse `record` and `start` (with every `@OptionGroup` they include): none of
    /// their options or texts may spell a declared option, or recordctl would take or describe by
    /// hand what the catalog declares.
    static let recordAndStart: Set<String> = ["RecordCommand", "StartCommand", "RecordCtl", "RecordingOptions"]
    /// Platform and C modules the SDK must never see.
    static let cModules: Set<String> = ["CFFmpeg", "CX11", "CPulse", "CShims", "CColorConversion", "CPipeWire"]
    /// The thin `recordctl` and what it links: they must never reach, directly or
    /// through any target of the package, a library whose loading costs ~45 ms at each start.
    static let thinClient: Set<String> = ["recordctl", "RecordCtlSupport", "RecordKitControl"]
    /// The libraries the thin client must not load: FFmpeg, X11, PulseAudio.
    static let engineLibraries: Set<String> = ["CFFmpeg", "CX11", "CPulse", "CPipeWire"]

    /// What each part may depend on (declared dependencies and imports alike), besides the
    /// system (Foundation, Glibc, Dispatch, Synchronization) and the packages named here.
    static let allowed: [String: Set<String>] = [
        "RecordKit": [],
        // Atomic files, the videos directory, the monotonic clock: Glibc only, usable by every part.
        "RecordKitSupport": [],
        "RecordKitCapture": ["RecordKitSupport", "RecordKit", "CX11", "CPulse", "CShims", "CColorConversion"],
        "RecordKitMedia": ["RecordKitSupport", "RecordKit", "CFFmpeg", "CColorConversion"],
        // The Wayland screen (ScreenCast portal + PipeWire): a video source the executables register.
        "RecordKitPipeWire": ["RecordKitSupport", "RecordKit", "RecordKitCapture", "CPipeWire"],
        // RecordKitControl: the control protocol's values (the recorder's status, extension requests) travel in it.
        "RecordKitPipeline": ["RecordKitSupport", "RecordKit", "RecordKitCapture", "RecordKitMedia", "RecordKitControl", "CShims"],
        "RecordKitExtensionSDK": ["RecordKitSupport", "RecordKit", "CShims"],
        "RecordKitExtensions": ["RecordKitSupport", "RecordKit", "RecordKitExtensionSDK", "RecordKitPipeline", "RecordKitControl", "CShims"],
        "FileUploadExtension": ["RecordKitSupport", "RecordKit", "RecordKitMedia"],
        "ReplayBufferExtension": ["RecordKitSupport", "RecordKit", "RecordKitMedia"],
        "RTMPUploadExtension": ["RecordKitSupport", "RecordKit", "RecordKitMedia"],
        // The preview's web server: RecordKitWeb, the one server of every loopback surface.
        "PreviewExtension": ["RecordKit", "RecordKitMedia", "RecordKitWeb"],
        "RecordKitBuiltins": ["RecordKit", "RecordKitExtensions", "FileUploadExtension", "RTMPUploadExtension", "ReplayBufferExtension",
                              "PreviewExtension"],
        // The service links no handler: the executables hand it the built-ins (`BuiltinExtension`s).
        // It translates the pipeline's snapshot (the capture's counters among it) into the status wire values.
        "RecordKitService": ["RecordKitSupport", "RecordKit", "RecordKitCapture", "RecordKitControl", "RecordKitPipeline", "RecordKitExtensions",
                             "RecordKitUploads", "CShims"],
        // Uploads the service owns: RecordKit and packages only, never capture, media or the pipeline.
        "RecordKitUploads": ["RecordKitSupport", "RecordKit", "CShims", "CCurl", "RecordKitDigest", "XMLCoder"],
        // The thin command line and what it links; the engine runs the in-process verbs.
        "RecordKitControl": ["CShims"],
        // obs-websocket 5's protocol layer: the control values and SHA-256; no FFmpeg, X11 or PulseAudio.
        "RecordKitOBSWebSocket": ["RecordKitControl", "RecordKitDigest"],
        // SHA-256, MD5 and HMAC over the system's libcrypto.
        "RecordKitDigest": ["COpenSSL"],
        "RecordCtlSupport": ["RecordKitControl"],
        "recordctl": ["RecordKitControl", "RecordCtlSupport", "RecordKitConfig", "ArgumentParser"],
        // The executables hand the list of built-ins to the service.
        // They register the sources beyond X11 and PulseAudio (VideoSourceRegistry) the same way.
        "recordctl-engine": ["RecordKitService", "RecordKitControl", "RecordCtlSupport", "RecordKitBuiltins", "RecordKitPipeWire",
                             "RecordKitMedia"],  // `recordctl trim` runs MovieTrimmer in process
        // The config file fills the same start arguments a command line does (RecordKitControl's values).
        "RecordKitConfig": ["RecordKitSupport", "RecordKitControl", "TOMLKit"],
        // recordd hands RecordKitMedia's MJPEG decoder to the PipeWire cameras, as recordctl-engine does.
        "recordd": ["RecordKitService", "RecordKitBuiltins", "RecordKitSurfaces", "RecordKitPipeWire", "RecordKitConfig", "RecordKitMedia"],
        // Control surfaces: clients of the service's request API; hotkeys grab keys on X11 through capture's display code;
        // the metrics endpoint observes encode times (EncodeTimeObserver in media).
        "RecordKitSurfaces": ["RecordKitSupport", "RecordKitService", "RecordKitControl", "RecordKitConfig", "RecordKitCapture", "RecordKitMedia", "RecordKitOBSWebSocket", "RecordKitWeb", "Prometheus"],
        // C modules: the system only.
        "CFFmpeg": [], "CX11": [], "CPulse": [], "CShims": [], "CColorConversion": [], "CPipeWire": [], "COpenSSL": [], "CCurl": [],
        // Tools: the tutorial's extension, test fixtures, benchmarks, fuzz targets.
        "frame-stats": ["RecordKitExtensionSDK"],
        "rk-test-extension": ["RecordKit", "RecordKitExtensionSDK"],
        "rk-testwindow": ["CX11"],
        "rk-flashbeep": ["RecordKitSupport", "CX11", "CPulse", "CShims"],
        "rk-extension-bench": ["RecordKitSupport", "RecordKit", "RecordKitCapture", "RecordKitPipeline", "RecordKitExtensions", "CShims"],
        "rk-runner-bench": ["RecordKit", "RecordKitMedia", "RecordKitPipeline", "RTMPUploadExtension", "CShims"],  // measures the runner with the real RTMP handler
        "FuzzSupport": [],  // the fuzz targets' shared replay and libFuzzer entry: Foundation only
        "rk-fuzz-control": ["FuzzSupport", "RecordKitControl"],  // the parser alone: no FFmpeg, X11 or PulseAudio
        "rk-fuzz-extension": ["FuzzSupport", "RecordKit", "RecordKitExtensionSDK"],
        "rk-fuzz-web": ["FuzzSupport", "RecordKitWeb", "NIOCore", "NIOEmbedded"],  // the web server alone, on an EmbeddedChannel
        // Test support shared by test targets.
        "MediaTestSupport": ["RecordKit", "RecordKitMedia"],
        "ExtensionTestSupport": ["RecordKit", "RecordKitExtensions"],
        "HandlerTestSupport": ["RecordKit"],
        // The one loopback web server: SwiftNIO only, never FFmpeg, X11 or PulseAudio.
        "RecordKitWeb": ["NIOCore", "NIOPosix", "NIOHTTP1", "NIOWebSocket"],
    ]
    /// Parts that must never reach a concrete handler, not even through another target: only the
    /// list of built-ins names them, and only the executables link that list.
    static let handlerFree: Set<String> = ["RecordKit", "RecordKitCapture", "RecordKitMedia", "RecordKitPipeline", "RecordKitControl", "RecordKitPipeWire",
                                           "RecordKitExtensions", "RecordKitExtensionSDK", "RecordKitService", "RecordKitConfig",
                                           "RecordCtlSupport", "recordctl"]
    static let system: Set<String> = ["Foundation", "Glibc", "Dispatch", "Synchronization", "XCTest", "PackageDescription"]

    /// Every violation, as a sentence; empty when the package keeps the rules.
    static func violations(_ targets: [Target], handlerOptions: Set<String> = []) -> [String] {
        var found: [String] = []
        for target in targets where optionFree.contains(target.name) {
            for literal in target.optionLiterals.intersection(handlerOptions).sorted() {
                found.append("\(target.name) spells the declared option \(literal); an extension's or a source's options come from its declaration through the catalog")
            }
        }
        // The other verbs' own options (`stop --output`, `trim --overwrite`): theirs to spell.
        var ownOptions: Set<String> = []
        for target in targets where commandLine.contains(target.name) {
            let parsing = target.spellings.closure(from: recordAndStart)
            for (type, spelled) in target.spellings.types where !parsing.contains(type) { ownOptions.formUnion(spelled.parsed) }
        }
        for target in targets where commandLine.contains(target.name) {
            let parsing = target.spellings.closure(from: recordAndStart)
            for (type, spelled) in target.spellings.types.sorted(by: { $0.key < $1.key }) {
                // record/start: nothing of theirs may spell a declared option, not even in a help text.
                // Elsewhere, a code form (a literal, a bare name, a property) that is not the verb's own
                // option; a help text of another verb may point the user to one (`--preview`).
                let copies = parsing.contains(type) ? spelled.parsed.union(spelled.literals).union(spelled.prose)
                    : spelled.literals.union(spelled.parsed).subtracting(ownOptions)
                for spelling in copies.intersection(handlerOptions).sorted() {
                    found.append("\(target.name) (\(type)) spells the declared option \(spelling); recordctl must take it from the catalog "
                                 + "(forwarded to the engine or the service, listed by `--help` through the engine)")
                }
            }
        }
        for target in targets where !target.isTest {
            guard let allowed = allowed[target.name] else {
                found.append("\(target.name) is not in the table of parts (DependencyRules.allowed, docs/ARCHITECTURE.md \"Parts\"): say what it may depend on")
                continue
            }
            let used = target.dependencies.union(target.imports).subtracting(system)
            for module in used.subtracting(allowed).sorted() {
                found.append("\(target.name) depends on \(module), which the table of parts (DependencyRules.allowed) does not allow")
            }
            if target.name == "RecordKit", !used.isDisjoint(with: cModules) {
                found.append("RecordKit (the SDK) imports a C module")
            }
            if handlers.contains(target.name), !used.isDisjoint(with: handlers.subtracting([target.name])) {
                found.append("handler \(target.name) imports another handler")
            }
            if ["RecordKitService", "recordctl", "recordctl-engine", "recordd", "RecordKitCapture", "RecordKitMedia", "RecordKitPipeline"].contains(target.name),
               !used.isDisjoint(with: handlers) {
                found.append("\(target.name) names a concrete handler; it must take handlers from the catalog by name")
            }
        }
        let byName = Dictionary(targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in handlerFree.sorted() where byName[name] != nil {
            for handler in reached(from: name, in: byName).intersection(handlers).sorted() {
                found.append("\(name) reaches \(handler): it names a concrete handler; it must take handlers from the catalog by name")
            }
        }
        for name in thinClient.sorted() where byName[name] != nil {
            for library in reached(from: name, in: byName).intersection(engineLibraries).sorted() {
                found.append("\(name) reaches \(library): the thin recordctl must not load FFmpeg, X11 or PulseAudio; "
                             + "run the verb in recordctl-engine")
            }
        }
        return found
    }

    /// Every target and module `name` depends on or imports, directly or through other targets.
    static func reached(from name: String, in targets: [String: Target]) -> Set<String> {
        var seen: Set<String> = []
        var pending = [name]
        while let next = pending.popLast() {
            guard let target = targets[next] else { continue }
            for module in target.dependencies.union(target.imports) where seen.insert(module).inserted { pending.append(module) }
        }
        return seen
    }

    /// The package at `root` as it is: targets from `swift package dump-package`, imports from
    /// each target's Swift files.
    static func load(packageRoot root: URL) throws -> [Target] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch path of its own: the package's .build is locked by the `swift test` running us.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rk-dump-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch, "dump-package"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Bounded: a manifest that cannot be evaluated must not hang the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { if process.isRunning { process.terminate() } }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let dump = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let targets = dump["targets"] as? [[String: Any]] else { throw CocoaError(.fileReadCorruptFile) }
        return targets.compactMap { t in
            guard let name = t["name"] as? String, let path = t["path"] as? String else { return nil }
            var dependencies: Set<String> = []
            for dependency in t["dependencies"] as? [[String: Any]] ?? [] {
                for (_, value) in dependency {
                    if let list = value as? [Any], let first = list.first as? String { dependencies.insert(first) }
                }
            }
            let directory = root.appendingPathComponent(path)
            return Target(name: name, dependencies: dependencies, imports: imports(under: directory),
                          isTest: t["type"] as? String == "test", optionLiterals: optionLiterals(under: directory),
                          spellings: commandLine.contains(name) ? OptionSpellings.scan(directory) : OptionSpellings())
        }
    }

    /// The options the handlers' manifests (`Extensions/*/*.json`) and the capture sources'
    /// declarations (`Sources/**/*.json`) declare, as `--name`.
    static func handlerOptions(packageRoot root: URL) -> Set<String> {
        var options: Set<String> = []
        for folder in ["Extensions", "Sources"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "json", let data = try? Data(contentsOf: file),
                      let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let commandLine = manifest["commandLine"] as? [String: Any],
                      let declared = commandLine["options"] as? [[String: Any]] else { continue }
                for option in declared {
                    if let name = option["name"] as? String { options.insert("--" + name) }
                    if let short = option["short"] as? String { options.insert("-" + short) }
                }
            }
        }
        return options
    }

    /// The string literals `"--word"` in the code (not the comments) of the Swift files under `directory`.
    static func optionLiterals(under directory: URL) -> Set<String> {
        var literals: Set<String> = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let code = line.components(separatedBy: "//").first ?? ""
                for literal in code.split(separator: "\"", omittingEmptySubsequences: false).enumerated() where literal.offset % 2 == 1 {
                    let word = String(literal.element)
                    if word.hasPrefix("--"), word.count > 2, word.dropFirst(2).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
                        literals.insert(word)
                    }
                }
            }
        }
        return literals
    }

    /// The modules imported by the Swift files under `directory`.
    static func imports(under directory: URL) -> Set<String> {
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                      words[..<i].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) }) else { continue }
                modules.insert(String(words[i + 1].split(separator: ".").first ?? ""))
            }
        }
        return modules
    }
}
