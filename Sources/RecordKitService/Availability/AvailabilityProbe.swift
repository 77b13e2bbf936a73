import CShims
import Foundation
import Glibc

/// Probes the servers a recording needs, without the X or PulseAudio libraries (whose error
/// handlers may end the process when a server goes away): a connection to the X server's
/// socket plus the X11 connection setup (any answer, even "authorization required", means the
/// server answers), and a connection to the PulseAudio server's socket. Each probe is bounded
/// (``timeoutMilliseconds``) and blocking: call it from a thread of your own.
enum AvailabilityProbe {
    /// The longest a probe waits for a server's answer.
    static let timeoutMilliseconds: Int32 = 2000

    /// Both servers, as `environment` (`DISPLAY`, `PULSE_SERVER`, `XDG_RUNTIME_DIR`) names them.
    static func probe(environment: [String: String] = ProcessInfo.processInfo.environment) -> Availability {
        Availability(display: display(environment["DISPLAY"]), audio: audio(environment))
    }

    /// The X server of `display` (`:0`, `:0.0`, `unix:0`; a display on another host is not probed).
    static func display(_ display: String?) -> Availability.Server {
        guard let display, !display.isEmpty else {
            return .init(name: "", reachable: false, reason: "no display: DISPLAY is not set")
        }
        guard let colon = display.lastIndex(of: ":") else {
            return .init(name: display, reachable: false, reason: "DISPLAY=\(display) is not a display name like :0")
        }
        let host = display[..<colon]
        let number = display[display.index(after: colon)...].split(separator: ".").first.flatMap { Int($0) }
        guard let number else { return .init(name: display, reachable: false, reason: "DISPLAY=\(display) is not a display name like :0") }
        guard host.isEmpty || host == "unix" else {
            return .init(name: display, reachable: true, reason: "display \(display) is on another host (not probed)")
        }
        let socket = "/tmp/.X11-unix/X\(number)"
        let fd = cshim_unix_connect(socket)
        guard fd >= 0 else {
            return .init(name: display, reachable: false, reason: "X server \(display) is not running (nothing listens on \(socket))")
        }
        defer { close(fd) }
        // Connection setup: little-endian, protocol 11.0, no authorization.
        let setup: [UInt8] = [0x6C, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let sent = setup.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == setup.count else {
            return .init(name: display, reachable: false, reason: "X server \(display) closed the connection")
        }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&p, 1, timeoutMilliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else {
            return .init(name: display, reachable: false, reason: "X server \(display) does not answer (no reply within \(timeoutMilliseconds / 1000) s)")
        }
        var first: UInt8 = 0
        guard recv(fd, &first, 1, 0) == 1 else {
            return .init(name: display, reachable: false, reason: "X server \(display) closed the connection")
        }
        return .init(name: display, reachable: true, reason: "X server \(display) answers")
    }

    /// The PulseAudio server: `PULSE_SERVER` (`unix:/path` or `/path`), else
    /// `$XDG_RUNTIME_DIR/pulse/native`. A TCP server is not probed.
    static func audio(_ environment: [String: String]) -> Availability.Server {
        var path: String
        if let server = environment["PULSE_SERVER"], !server.isEmpty {
            let first = server.split(separator: " ").first.map(String.init) ?? server
            if first.hasPrefix("unix:") { path = String(first.dropFirst(5)) }
            else if first.hasPrefix("/") { path = first }
            else { return .init(name: server, reachable: true, reason: "audio server \(server) is not local (not probed)") }
        } else if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            path = runtime + "/pulse/native"
        } else {
            path = "/run/user/\(getuid())/pulse/native"
        }
        let name = "unix:" + path
        guard access(path, F_OK) == 0 else {
            return .init(name: name, reachable: false, reason: "no audio server: nothing at \(path) (PulseAudio or PipeWire's pipewire-pulse is not running)")
        }
        let fd = cshim_unix_connect(path)
        guard fd >= 0 else {
            return .init(name: name, reachable: false, reason: "audio server \(name) does not accept connections (\(String(cString: strerror(errno))))")
        }
        close(fd)
        return .init(name: name, reachable: true, reason: "audio server \(name) accepts connections")
    }
}
