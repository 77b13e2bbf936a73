import Foundation
import RecordCtlSupport
import RecordKitBuiltins
import RecordKitService

/// Runs one ``EngineRequest`` in this process and returns recordctl's exit code for it: what
/// `recordctl record`, `extensions`, `monitors` and `audio-sources` did in process before
/// recordctl became a thin client (it loads no FFmpeg, X11 or PulseAudio, to start fast), unchanged.
enum EngineVerbs {
    /// Runs `request`; returns the exit code.
    static func run(_ request: EngineRequest) -> Int32 {
        switch request {
        case let .record(arguments, duration):
            return record(arguments, duration: duration)
        case let .trim(file, start, end, output, overwrite):
            return TrimVerb.run(file: file, start: start, end: end, output: output, overwrite: overwrite)
        case let .extensions(directories, json):
            return extensions(directories: directories, json: json)
        case let .outputOptionsHelp(directories):
            Console.help(StartArguments.outputOptionsHelp(builtins: BuiltinExtensions.all, extensionsDirectories: directories))
            return 0
        case let .checkConfig(options, checked):
            let problems = StartArguments.configuredOptionProblems(options, builtins: BuiltinExtensions.all)
            for problem in problems { Console.error(problem) }
            guard problems.isEmpty else { return ExitCodes.usage }
            for file in checked { Console.out("\(file): ok") }
            return 0
        case let .sourceKeyDefaults(set):
            for (key, value) in StartArguments.sourceKeyDefaults where !set.contains(key) { Console.out("\(key) = \(value)  (default)") }
            return 0
        case let .monitors(json):
            return SourceListingVerbs.monitors(json: json)
        case let .cameras(json):
            return SourceListingVerbs.cameras(json: json)
        case let .audioSources(json):
            return SourceListingVerbs.audioSources(json: json)
        }
    }

    /// `recordctl record`: every value checked as the recording will check it (an encoder that
    /// cannot open, Opus in MP4, an unknown extension: exit 64 before anything records), then
    /// one recording in the foreground.
    static func record(_ arguments: StartArguments, duration: Double?) -> Int32 {
        do throws(ControlError) {
            for warning in try arguments.check(builtins: BuiltinExtensions.all) { Console.error(warning) }
        } catch {
            Console.error(error.message)
            return ExitCodes.usage
        }
        return ForegroundSession(arguments: arguments).run(duration: duration)
    }

    /// `recordctl extensions`: every extension, where it comes from, why a broken one cannot load.
    static func extensions(directories: [String], json: Bool) -> Int32 {
        let listings = ExtensionListing.all(builtins: BuiltinExtensions.all, extensionsDirectories: directories)
        if json {
            Console.json(listings)
            return 0
        }
        Console.out("user extensions: \(ExtensionListing.userDirectory)")
        for listing in listings { Console.out(listing.text) }
        return 0
    }
}
