/// Constants of the extension protocol (docs/EXTENSIONS.md, "Protocol").
package enum ExtensionProtocol {
    /// The protocol version this SDK and host speak. 2: `started` carries every stream's format
    /// (announced before it) and the working directory.
    package static let version = 2
    /// The largest message either side may send, in bytes. Media never travels in messages.
    package static let maxMessageBytes = 65_536
    /// The environment variable that names the extension's end of the socket (always "3").
    package static let descriptorVariable = "RECORDKIT_EXTENSION_FD"
    /// Feature: the extension can attach System V shared memory (regions with `"sysv"`).
    package static let featureSysV = "sysv-shm"
    /// Feature: the extension takes `annotated` messages (markers, `broadcastAnnotated`). The
    /// host sends them only to an extension that accepted the feature, so an extension built
    /// before it keeps working.
    package static let featureAnnotations = "annotations"
}

/// Why a protocol exchange failed.
package enum WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer closed its end (or died).
    case closed
    /// A system call failed: which, and `strerror`.
    case system(String)
    /// A message that is not valid JSON or not a valid message: what is wrong.
    case malformed(String)

    package var description: String {
        switch self {
        case .closed: return "the connection was closed"
        case .system(let s): return s
        case .malformed(let s): return s
        }
    }
}
