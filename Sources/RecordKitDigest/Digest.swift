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

/// A digest from the system's libcrypto (one EVP context), incremental (`update`, then
/// `finalize`, once) or one-shot (``hash(data:)``). Owned by one thread at a time. Why not
/// swift-crypto: it compiles a BoringSSL of its own (about 4 minutes of every clean build on a
/// 2-core machine) for digests the system's OpenSSL already has.
package final class Digest<Algorithm: DigestAlgorithm> {
    private let context: OpaquePointer

    /// A digest of nothing yet.
    package init() {
        // Only allocation can fail here; without memory nothing else would go on either.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, Algorithm.evpDigest(), nil) == 1 else {
            fatalError("libcrypto could not start a digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds the bytes `bufferPointer` points at.
    package func update(bufferPointer: UnsafeRawBufferPointer) {
        guard let base = bufferPointer.baseAddress, bufferPointer.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, bufferPointer.count)
    }

    /// Adds every region of `data`.
    package func update(data: some DataProtocol) {
        for region in data.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }

    /// The digest of everything added (32 bytes for SHA-256, 16 for MD5); call it once.
    package func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { out, count in
            var length: UInt32 = 0
            _ = EVP_DigestFinal_ex(context, out.baseAddress, &length)
            count = Int(length)
        }
    }

    /// The digest of `data`.
    package static func hash(data: some DataProtocol) -> [UInt8] {
        let digest = Digest()
        digest.update(data: data)
        return digest.finalize()
    }

    /// The digest of the bytes `bufferPointer` points at.
    package static func hash(bufferPointer: UnsafeRawBufferPointer) -> [UInt8] {
        let digest = Digest()
        digest.update(bufferPointer: bufferPointer)
        return digest.finalize()
    }
}
