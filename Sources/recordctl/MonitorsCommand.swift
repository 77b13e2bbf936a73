import ArgumentParser
import Foundation
import RecordKitCapture

/// `recordctl monitors`: the RandR monitors of the display, for `--monitor`.
struct MonitorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitors", abstract: "List the display's RandR monitors (index, name, geometry) for --monitor.")

    @Flag(help: "Print the list as JSON.")
    var json = false

    func run() throws {
        let monitors: [MonitorInfo]
        do throws(CaptureError) { monitors = try MonitorList.list(display: ProcessInfo.processInfo.environment["DISPLAY"]) } catch {
            Console.error(error.message)
            throw ExitCode(error.kind == .noDisplay ? ExitCodes.unavailable : ExitCodes.failed)
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
