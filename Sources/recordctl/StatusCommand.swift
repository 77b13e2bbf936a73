import ArgumentParser
import Foundation
import RecordCtlSupport
import RecordKitControl

/// `recordctl status`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the recording's state, times, capture and handler counters.")

    @Flag(help: "Print the status as JSON (docs/PROTOCOL.md).")
    var json = false

    @Flag(help: "After the status, print one line per event until interrupted.")
    var watch = false

    func run() throws {
        let result = try serviceRequest(.status)
        guard let status = result.status else { throw ExitCode(ExitCodes.failed) }
        if json {
            Console.json(status)
        } else {
            Console.out(StatusFormatter.text(status))
        }
        if watch { try EventsCommand.stream(json: json) }
    }
}

/// `recordctl events`.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Print one line per service event (state changes with their reasons) until interrupted.")

    @Flag(help: "Print each event as a JSON object.")
    var json = false

    func run() throws { try Self.stream(json: json) }

    static func stream(json: Bool) throws {
        do throws(ControlError) {
            let client = try ServiceConnection.connect(startIfNeeded: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try client.streamEvents { event in
                if json {
                    Console.out(String(decoding: (try? encoder.encode(event)) ?? Data(), as: UTF8.self))
                } else {
                    Console.out(StatusFormatter.line(event))
                }
                return true
            }
        } catch {
            Console.error(error.message)
            throw ExitCode(ExitCodes.code(for: error))
        }
    }
}

/// `recordctl service start|stop|status`.
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service", abstract: "Start, stop or query the recordd service.")

    enum Action: String, ExpressibleByArgument { case start, stop, status }

    @Argument(help: "start, stop or status")
    var action: Action

    func run() throws {
        switch action {
        case .start:
            let result = try serviceRequest(.hello)
            Console.out("recordd running, pid \(result.pid ?? 0), socket \(ServicePaths().socketPath)")
        case .stop:
            guard (try? ServiceConnection.connect(startIfNeeded: false)) != nil else {
                Console.out("recordd is not running")
                return
            }
            _ = try serviceRequest(.shutdown, startIfNeeded: false)
            Console.out("recordd stopped")
        case .status:
            guard let client = try? ServiceConnection.connect(startIfNeeded: false), let hello = try? client.request(.hello) else {
                Console.out("recordd is not running")
                throw ExitCode(ExitCodes.unavailable)
            }
            Console.out("recordd running, pid \(hello.pid ?? 0), protocol \(hello.version ?? 0), socket \(ServicePaths().socketPath)")
        }
    }
}
