import COpenSSL
import Foundation

/// SHA-256 (FIPS 180-4) from the system's libcrypto: S3's payload hashes and SigV4, the upload
/// queue's file identity, obs-websocket's authentication. Incremental (`update`, then
/// `finalize`) or one-shot (``hash(data:)``). Why not swift-crypto: it compiles a BoringSSL
/// of its own (about 4 minutes of every clean build on a 2-core machine) for three digests
/// the system's OpenSSL already has.
package struct SHA256 {
    private let context = DigestContext(EVP_sha256())

    /// A digest of nothing yet.
    package init() {}

    /// Adds `data`.
    package mutating func update(data: some DataProtocol) { context.update(data: data) }

    /// Adds the bytes `bufferPointer` points at.
    package mutating func update(bufferPointer: UnsafeRawBufferPointer) { context.update(bufferPointer) }

    /// The 32-byte digest of everything added.
    package func finalize() -> [UInt8] { context.finalize() }

    /// The 32-byte digest of `data`.
    package static func hash(data: some DataProtocol) -> [UInt8] {
        var digest = SHA256()
        digest.update(data: data)
        return digest.finalize()
    }
}
