import Foundation
import RecordKitConfig
import RecordKitControl
import RecordKitOBSWebSocket
import RecordKitService
import RecordKitSupport
import Synchronization

/// The control surfaces `recordd` runs beside its socket, each a client of the service's one
/// request API (``LocalControlClient``): hotkeys from the config file's `[hotkeys]`, the
/// Prometheus endpoint of its `[metrics]`, and the
/// obs-websocket server (off unless the private config enables it). The private config is
/// followed: a change (`recordctl obs-websocket enable|disable`, another port or password) takes
/// effect within ``pollSeconds``. A surface that cannot start is logged and retried at the next
/// change; it never stops the service.
package final class ControlSurfaces: Sendable {
    /// Seconds between looks at the private config file.
    package static let pollSeconds = 2.0

    private let service: RecordingService
    private let log: @Sendable (String) -> Void
    private struct State {
        var hotkeys: HotkeySurface?
        var obsSettings: OBSWebSocketSettings?
        var obsServer: OBSWebSocketServer?
        var metrics: MetricsSurface?
        var running = false
    }
    private let state = Mutex(State())

    package init(service: RecordingService, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.log = log
    }

    /// Starts the surfaces the config files ask for, then follows the private one on a thread of its own.
    package func start() {
        let config: ConfigFile?
        do throws(ConfigError) { config = try ConfigFile() } catch {
            log("control surfaces: \(error.message); no hotkeys")
            config = nil
        }
        // What a recording started here records with: everything the config file sets (capture,
        // hooks, encoding keys, outputs' keys, [uploads]), as `recordctl start` with no flag would.
        let env = ProcessInfo.processInfo.environment
        var base = StartArguments()
        if let config {
            do throws(ConfigError) { base = try config.startArguments(profile: nil) } catch {
                log("control surfaces: \(error.message); recordings started here use the defaults")
            }
        }
        base.display = env["DISPLAY"]
        base.audioServer = env["PULSE_SERVER"]
        base.environment = env.filter { $0.key.hasPrefix("RECORDKIT_") }
        if let config {
            let hotkeyArguments = base
            let surface = HotkeySurface.start(settings: config.hotkeys, display: env["DISPLAY"], control: LocalControlClient(service: service),
                                              notifier: DesktopNotifier(log: log), startArguments: { hotkeyArguments }, log: log)
            state.withLock { $0.hotkeys = surface }
            if config.metrics.enabled {
                let metrics = MetricsSurface(control: LocalControlClient(service: service))
                do {
                    let port = try metrics.start(port: UInt16(config.metrics.port))
                    state.withLock { $0.metrics = metrics }
                    log("metrics: http://127.0.0.1:\(port)/metrics")
                } catch {
                    log("metrics: cannot listen on 127.0.0.1:\(config.metrics.port): \(error); choose another [metrics] port")
                }
            }
        }
        state.withLock { $0.running = true }
        // obs-websocket chooses the outputs itself (StartRecord, StartStream, …): the outputs' keys do not apply.
        let obsBase = { () -> StartArguments in
            var a = base
            a.configuredOutputOptions = []
            return a
        }()
        applyOBSWebSocket(base: obsBase)
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                Thread.sleep(forTimeInterval: Self.pollSeconds)
                applyOBSWebSocket(base: obsBase)
            }
        }
        thread.name = "recordkit.surfaces"
        thread.start()
    }

    /// Stops every surface (obs-websocket clients get ExitStarted, then 1001).
    package func stop() {
        let (hotkeys, server, metrics) = state.withLock { s in
            defer { s.hotkeys = nil; s.obsServer = nil; s.metrics = nil; s.running = false }
            return (s.hotkeys, s.obsServer, s.metrics)
        }
        hotkeys?.stop()
        server?.stop()
        metrics?.stop()
    }

    private func applyOBSWebSocket(base: StartArguments) {
        let settings: OBSWebSocketSettings
        do throws(ConfigError) { settings = try OBSWebSocketSettings(path: OBSWebSocketSettings.privatePath()) } catch {
            let known = state.withLock { $0.obsSettings != nil }
            if known { log("obs-websocket: \(error.message); the server stays as it was") }
            return
        }
        let (old, server) = state.withLock { ($0.obsSettings, $0.obsServer) }
        if old == settings && (server != nil || !settings.enabled) { return }
        state.withLock { $0.obsSettings = settings; $0.obsServer = nil }
        server?.stop()
        guard settings.enabled, !settings.password.isEmpty else {
            if old?.enabled == true { log("obs-websocket: off") }
            return
        }
        let recording = OBSRecordingSettings(recordDirectory: settings.recordDirectory ?? VideosDirectory.path(), streamURL: settings.streamURL,
                                             base: base)
        let next = OBSWebSocketServer(control: LocalControlClient(service: service), password: settings.password, settings: recording, log: log)
        do {
            let port = try next.start(port: UInt16(settings.port))
            let keep = state.withLock { s -> Bool in
                guard s.running, s.obsSettings == settings else { return false }
                s.obsServer = next
                return true
            }
            if keep { log("obs-websocket: listening on ws://127.0.0.1:\(port)") } else { next.stop() }
        } catch {
            log("obs-websocket: cannot listen on 127.0.0.1:\(settings.port): \(error); choose another port: recordctl obs-websocket enable --port N")
        }
    }
}
