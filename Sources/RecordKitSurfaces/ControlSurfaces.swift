import Foundation
import RecordKitConfig
import RecordKitControl
import RecordKitService
import Synchronization

/// The control surfaces `recordd` runs beside its socket, each a client of the service's one
/// request API (``LocalControlClient``): hotkeys from the config file's `[hotkeys]`. A surface
/// that cannot start is logged; it never stops the service.
package final class ControlSurfaces: Sendable {
    private let service: RecordingService
    private let log: @Sendable (String) -> Void
    private let hotkeys = Mutex<HotkeySurface?>(nil)

    package init(service: RecordingService, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.log = log
    }

    /// Starts the surfaces the config file asks for.
    package func start() {
        let config: ConfigFile
        do throws(ConfigError) { config = try ConfigFile() } catch {
            log("control surfaces: \(error.message); none started")
            return
        }
        let env = ProcessInfo.processInfo.environment
        let hooks = config.hooks
        let surface = HotkeySurface.start(settings: config.hotkeys, display: env["DISPLAY"], control: LocalControlClient(service: service),
                                          notifier: DesktopNotifier(log: log), startArguments: {
            var a = StartArguments()
            a.display = env["DISPLAY"]
            a.audioServer = env["PULSE_SERVER"]
            a.onSaved = hooks.onSaved
            a.hookTimeout = hooks.timeout
            return a
        }, log: log)
        hotkeys.withLock { $0 = surface }
    }

    /// Stops every surface.
    package func stop() {
        hotkeys.withLock { $0?.stop(); $0 = nil }
    }
}
