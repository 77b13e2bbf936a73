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

    /// The cameras: PipeWire's `Video/Source` nodes (name, node id, description, role) and the
    /// V4L2 devices (listed only). Always 0; an API that could not be asked is a `note:` line on
    /// standard error (JSON: `problems`).
    static func cameras(json: Bool) -> Int32 {
        let (cameras, problems) = SourceListing.cameras()
        if json {
            struct Listing: Encodable { let cameras: [CameraEntry]; let problems: [String] }
            Console.json(Listing(cameras: cameras, problems: problems))
            return 0
        }
        for c in cameras {
            let id = c.nodeID.map { "node \($0)" } ?? "-"
            Console.out("\(c.api)\t\(c.name)\t\(id)\t\(c.description.isEmpty ? "-" : c.description)\t\(c.detail.isEmpty ? "-" : c.detail)"
                + (c.recordable ? "" : "\tlisted only: record it through PipeWire")
                + (c.formats.map { "\tformats: " + ($0.isEmpty ? "none RecordKit reads" : $0.joined(separator: ", ")) } ?? ""))
        }
        if cameras.isEmpty { Console.error("no camera: PipeWire has no Video/Source node and there is no V4L2 device") }
        for p in problems { Console.error("note: \(p)") }
        return 0
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
