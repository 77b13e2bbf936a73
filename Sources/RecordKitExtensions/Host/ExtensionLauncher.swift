import CShims
import Foundation
import Glibc
import RecordKit
import RecordKitExtensionSDK

/// Starts an extension's process and completes the handshake (docs/EXTENSIONS.md, "The
/// process", "Messages"): a `SOCK_SEQPACKET` pair, the executable spawned with its end as
/// descriptor 3, the memory watchdog, then `hello` both ways within `lifecycleTimeoutMs`.
enum ExtensionLauncher {
    /// Set `RECORDKIT_EXTENSION_COPY=1` to copy every frame (to measure what lending saves).
    static let alwaysCopy = ProcessInfo.processInfo.environment["RECORDKIT_EXTENSION_COPY"] == "1"

    /// A session with `executable` running and greeted; throws why it could not be.
    static func launch(manifest: ExtensionManifest, executable: String, directory: String,
                       supervisor: ExtensionSupervisor) throws(BroadcastError) -> ExtensionSession {
        var fds: [Int32] = [-1, -1]
        guard cshim_seqpacket_pair(&fds) == 0 else {
            throw BroadcastError(.internalError, "cannot create the extension's socket: \(String(cString: strerror(errno)))")
        }
        var environment = ProcessInfo.processInfo.environment
        environment[ExtensionProtocol.descriptorVariable] = "3"
        environment["RECORDKIT_EXTENSION_NAME"] = manifest.name
        environment["RECORDKIT_EXTENSION_DIR"] = directory
        let process: ExtensionProcess
        do throws(ExtensionFailure) {
            process = try ExtensionProcess.spawn(executable: executable, environment: environment, socket: fds[1]) { status in
                supervisor.processExited(status)
            }
        } catch {
            close(fds[0]); close(fds[1])
            throw BroadcastError(.internalError, "extension process \(error)")
        }
        close(fds[1])
        supervisor.attach(process)
        let channel = ExtensionChannel(fd: fds[0])
        let watchdog = MemoryWatchdog(pid: process.pid, limitMB: manifest.limits.memoryMB) { used in
            supervisor.fail(.memory(limitMB: manifest.limits.memoryMB, usedMB: used))
        }
        let session = ExtensionSession(manifest: manifest, process: process, channel: channel, supervisor: supervisor, watchdog: watchdog)
        do throws(ExtensionFailure) {
            let features = try handshake(channel, manifest: manifest, supervisor: supervisor)
            session.lendsFrames = features.contains(ExtensionProtocol.featureSysV) && !alwaysCopy
            session.takesAnnotations = features.contains(ExtensionProtocol.featureAnnotations)
        } catch {
            supervisor.fail(error)
            session.close()
            throw BroadcastError(.internalError, supervisor.message(for: supervisor.failure ?? error))
        }
        return session
    }

    /// Sends `hello`, checks the answer; returns the features the extension accepted.
    private static func handshake(_ channel: ExtensionChannel, manifest: ExtensionManifest,
                                  supervisor: ExtensionSupervisor) throws(ExtensionFailure) -> Set<String> {
        supervisor.setCall("the handshake")
        defer { supervisor.setCall(nil) }
        let limit = manifest.limits.lifecycleTimeoutMs
        let reply: ExtensionMessage?
        do throws(WireError) {
            try channel.send(.hello(protocols: [ExtensionProtocol.version],
                                    features: [ExtensionProtocol.featureSysV, ExtensionProtocol.featureAnnotations]))
            reply = try channel.receive(timeoutMs: limit)
        } catch {
            throw supervisor.failure(for: error)
        }
        guard let reply else { throw ExtensionFailure.handshake("no answer to hello within \(limit) ms") }
        guard case .hello(let version, let features, let input) = reply else {
            throw ExtensionFailure.protocolViolation("its first message is not hello")
        }
        guard version == ExtensionProtocol.version else {
            throw ExtensionFailure.handshake("it speaks protocol \(version); this recorder speaks \(ExtensionProtocol.version)")
        }
        if let input {
            let declared = try? HandlerInput(json: input, path: "hello.input")
            if declared != manifest.input {
                throw ExtensionFailure.inputMismatch(code: declared?.summary ?? "an unreadable input", manifest: manifest.inputSummary)
            }
        }
        return Set(features)
    }
}
