import CShims
import Glibc

/// The control socket's access rule: only the service's own user may talk to it.
package enum PeerCredentials {
    /// Whether a peer with uid `peer` may use a service running as `own` (only the same user;
    /// a peer whose credentials cannot be read is refused).
    package static func isAllowed(peerUID peer: Int?, serviceUID own: UInt32) -> Bool {
        guard let peer else { return false }
        return peer == Int(own)
    }

    /// The uid of the process at the other end of `fd` (`SO_PEERCRED`), or nil.
    package static func peerUID(of fd: Int32) -> Int? {
        let uid = cshim_peer_uid(fd)
        return uid < 0 ? nil : uid
    }
}
