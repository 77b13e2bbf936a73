import ArgumentParser
import Foundation
import RecordKitService

/// `recordctl monitors`: the RandR monitors of the display, for `--monitor`.
struct MonitorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitors", abstract: "List the display's RandR monitors (index, name, geometry) for --monitor.")

    @Flag(help: "Print the list as JSON.")
    var json = false

    func run() throws {
        let monitors: [MonitorEntry]
        do throws(ControlError) { monitors = try SourceListing.monitors(display: ProcessInfo.processInfo.environment["DISPLAY"]) } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            Console.out(String(decoding: (try? encoder.encode(monitors)) ?? Data(), as: UTF8.self))
            return
        }
        for m in monitors {
            Console.out("\(m.index)\t\(m.name)\t\(m.width)x\(m.height)+\(m.x)+\(m.y)\(m.isPrimary ? "\tprimary" : "")")
        }
    }
}
