import RecordKitControl

/// Where `recordctl mic|app-audio|camera off|on` go: the service's recording first; when the
/// service is not running or records nothing, a foreground `recordctl record` of this user
/// (its socket ``ServicePaths/foregroundRecording``, the same checks as the service's).
enum LiveSwitch {
    /// Sends `cmd` with `options` and returns the answer of whichever recording took it.
    /// - Throws: the service's error when neither answers (`not_recording`, or `unavailable`
    ///   saying that neither runs), `permission_denied` for another user's socket, or the
    ///   recording's own refusal (no camera, not recording).
    static func send(_ cmd: ControlCommand, options: CommandOptions) throws(ControlError) -> ControlResult {
        let paths = ServicePaths()
        let serviceError: ControlError
        do throws(ControlError) {
            let client = try ControlClient(paths: paths)
            return try client.request(cmd, options: options)
        } catch {
            guard error.code == .unavailable || error.code == .notRecording else { throw error }
            serviceError = error
        }
        let foreground: ControlClient
        do throws(ControlError) { foreground = try ControlClient(paths: paths.foregroundRecording) } catch {
            if error.code == .permissionDenied { throw error }
            if serviceError.code == .notRecording { throw serviceError }
            throw ControlError(.unavailable, "nothing to switch: recordd is not running and no `recordctl record` runs in the foreground")
        }
        return try foreground.request(cmd, options: options)
    }
}
