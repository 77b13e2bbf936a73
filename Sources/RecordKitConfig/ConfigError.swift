/// A config file or setting that cannot be used: says which file, which line and what to write.
package struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// The whole message, for example `/home/a/.config/recordkit/config.toml, line 3: crf must be a whole number, got "high"`.
    package let message: String
    /// Creates an error with its full message.
    package init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}
