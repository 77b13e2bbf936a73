import Synchronization

/// ReplayKit's `isCameraEnabled` on a running recording: whether the camera's picture is drawn,
/// and from which capture-clock instant, so the corner disappears exactly at the switch, not
/// at whichever frame the capture thread happened to be on. Thread-safe (a lock).
package final class CameraSwitch: Sendable {
    private struct Setting {
        var enabled: Bool
        /// From this `CLOCK_MONOTONIC` instant (ns) on; frames before it have the opposite state.
        var sinceNs: UInt64
    }
    private let setting: Mutex<Setting>

    /// On (or off) from the start.
    package init(enabled: Bool) { setting = Mutex(Setting(enabled: enabled, sinceNs: 0)) }

    /// Switches on or off from instant `atNs`; false when it already was in that state.
    package func set(enabled: Bool, atNs: UInt64) -> Bool {
        setting.withLock { s in
            if s.enabled == enabled { return false }
            s = Setting(enabled: enabled, sinceNs: atNs)
            return true
        }
    }

    /// Whether the camera is switched on now.
    package var isEnabled: Bool { setting.withLock { $0.enabled } }

    /// Whether a frame captured at `captureNs` shows the camera.
    package func isShown(at captureNs: UInt64) -> Bool {
        setting.withLock { s in captureNs >= s.sinceNs ? s.enabled : !s.enabled }
    }
}
