import Foundation
import RecordCtlSupport
import RecordKitService

/// `recordctl monitors` and `recordctl audio-sources`: what the display and the audio server
/// offer, for `--monitor`, `--app-audio-from`, `--app-sink` and `--mic-source`.
enum SourceListingVerbs {
    /// The display's RandR monitors; 69 without a display.
    static func monitors(json: Bool) -> Int32 {
        list(json: json, { () throws(ControlError) in
            try SourceListing.monitors(display: ProcessInfo.processInfo.environment["DISPLAY"])
        }) { monitors in
            for m in monitors {
                Console.out("\(m.index)\t\(m.name)\t\(m.width)x\(m.height)+\(m.x)+\(m.y)\(m.isPrimary ? "\tprimary" : "")")
            }
        }
    }

    /// The applications playing now, the sinks and the sources; 69 without a server.
    static func audioSources(json: Bool) -> Int32 {
        list(json: json, { () throws(ControlError) in
            try SourceListing.audioSources(server: ProcessInfo.processInfo.environment["PULSE_SERVER"])
        }) { inventory in
            Console.out("applications:")
            for app in inventory.applications {
                Console.out("  \(app.name ?? "-")\tpid \(app.pid.map(String.init) ?? "-")\tsink-input \(app.sinkInput)\tsink \(app.sink ?? "-")")
            }
            Console.out("sinks:")
            for sink in inventory.sinks { Console.out("  \(sink)") }
            Console.out("sources:")
            for source in inventory.sources { Console.out("  \(source)") }
        }
    }

    /// Loads a listing and prints it as JSON or with `text`; a failure to load is printed and
    /// mapped to its exit code.
    private static func list<Listing: Encodable>(json: Bool, _ load: () throws(ControlError) -> Listing,
                                                 text: (Listing) -> Void) -> Int32 {
        let listing: Listing
        do throws(ControlError) { listing = try load() } catch {
            Console.error(error.message)
            return ExitCodes.code(for: error)
        }
        if json { Console.json(listing) } else { text(listing) }
        return 0
    }
}
