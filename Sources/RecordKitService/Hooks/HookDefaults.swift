/// Defaults of the hooks (docs/recordctl/hooks.md).
package enum HookDefaults {
    /// Seconds a hook may run before it is ended, unless `--hook-timeout` or `[hooks] timeout` says otherwise.
    package static let timeoutSeconds = 60.0
}
