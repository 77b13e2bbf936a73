import Glibc
@_exported import RecordKit

/// The entry point of an out-of-process broadcast upload extension, as `NSExtensionMain` is for
/// a ReplayKit broadcast upload extension.
///
/// An extension's executable does one thing in its `main.swift`:
///
/// ```swift
/// import RecordKitExtensionSDK
/// RecordKitExtension.run(MyHandler())
/// ```
///
/// `run` connects to the recorder that started the process (through descriptor 3, named by
/// `RECORDKIT_EXTENSION_FD`), answers its handshake, maps the shared memory that frames arrive
/// in, and calls the handler exactly as the recorder calls an in-process handler: serially, on
/// this (the main) thread, `broadcastStarted` first, samples in timeline order, and
/// `broadcastFinished` exactly once and last. Each `SampleBuffer` reads straight from shared
/// memory; keep it (or its `MediaBuffer`) beyond the call only when you must: the recorder
/// lends a few buffers per extension, and frames beyond those are copied or dropped.
///
/// The manifest's `input` decides what the recorder sends; the handler need not declare
/// `BroadcastSampleHandler.input` (if it does, the recorder checks it against the manifest).
public enum RecordKitExtension {
    /// Serves `handler` until the broadcast finishes or the recorder goes away, then exits the
    /// process: status 0 after `broadcastFinished`, 64 when the process was not started by a
    /// recorder, 70 when the recorder broke the protocol.
    public static func run(_ handler: some BroadcastSampleHandler) -> Never {
        guard let text = getenv(ExtensionProtocol.descriptorVariable).map({ String(cString: $0) }),
              let fd = Int32(text), fd >= 0, fcntl(fd, F_GETFD) >= 0 else {
            ExtensionLog.error("this program is a RecordKit extension: the recorder starts it (recordctl record --extension NAME); "
                               + "\(ExtensionProtocol.descriptorVariable) does not name an open socket")
            exit(64)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not for the extension's own children
        let loop = ExtensionRunLoop(socket: PacketSocket(fd: fd), handler: handler)
        exit(loop.run())
    }
}

/// Writes diagnostics of the SDK to standard error (which the recorder keeps in its log).
enum ExtensionLog {
    /// Writes one line.
    static func error(_ message: String) {
        let line = "recordkit-extension[\(getpid())]: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}

extension BroadcastSampleHandler {
    /// An out-of-process extension's input is declared once, in its manifest (the recorder
    /// reads it before the process runs): a handler need not repeat it. This default stands for
    /// "as the manifest says". A handler that does declare `input` has it checked against the
    /// manifest at start, and the extension is refused when they differ.
    public var input: HandlerInput { .asDeclaredByManifest }
}

extension HandlerInput {
    /// "As the manifest says": what `BroadcastSampleHandler.input` is for an out-of-process
    /// handler that does not repeat its manifest.
    public static let asDeclaredByManifest = HandlerInput(video: .none)
}
