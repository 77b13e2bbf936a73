import COpenSSL
import Foundation

/// A digest algorithm libcrypto implements: its EVP description.
package protocol DigestAlgorithm {
    /// `EVP_sha256()`, `EVP_md5()`, ...
    static func evpDigest() -> OpaquePointer
}

/// SHA-256 (FIPS 180-4): S3's payload hashes and SigV4, the upload queue's file identity,
/// obs-websocket's authentication.
package enum SHA256Algorithm: DigestAlgorithm {
    package static func evpDigest() -> OpaquePointer { EVP_sha256() }
}

/// MD5 (RFC 1321), for what S3 asks it for and nothing secret: a part's `Content-MD5`, the
/// ETags S3 servers answer.
package enum MD5Algorithm: DigestAlgorithm {
    package static func evpDigest() -> OpaquePointer { EVP_md5() }
}

/// SHA-256 from the system's libcrypto.
package typealias SHA256 = Digest<SHA256Algorithm>
/// MD5 from the system's libcrypto.
package typealias MD5 = Digest<MD5Algorithm>

/// A digest from the system's libcrypto, incremental (`update`, then `finalize`) or one-shot
/// (``hash(data:)``). Why not swift-crypto: it compiles a BoringSSL of its own (about 4 minutes
/// of every clean build on a 2-core machine) for digests the system's OpenSSL already has.
/// Not to be copied while in use (the copies would share one running state).
package struct Digest<Algorithm: DigestAlgorithm> {
    private let context = DigestContext(Algorithm.evpDigest())

    /// A digest of nothing yet.
    package init() {}

    /// Adds `data`.
    package mutating func update(data: some DataProtocol) { context.update(data: data) }

    /// Adds the bytes `bufferPointer` points at.
    package mutating func update(bufferPointer: UnsafeRawBufferPointer) { context.update(bufferPointer) }

    /// The digest of everything added (32 bytes for SHA-256, 16 for MD5).
    package func finalize() -> [UInt8] { context.finalize() }

    /// The digest of `data`.
    package static func hash(data: some DataProtocol) -> [UInt8] {
        var digest = Self()
        digest.update(data: data)
        return digest.finalize()
    }

    /// The digest of the bytes `bufferPointer` points at.
    package static func hash(bufferPointer: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = Self()
        digest.update(bufferPointer: bufferPointer)
        return digest.finalize()
    }
}
