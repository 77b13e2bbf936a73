import COpenSSL
import Foundation

/// One running digest over libcrypto's EVP interface: the state behind ``Digest``.
/// Owned by one thread at a time (the values that hold it are not `Sendable`).
final class DigestContext {
    private let context: OpaquePointer

    /// A fresh digest of `algorithm` (`EVP_sha256()`, `EVP_md5()`).
    init(_ algorithm: OpaquePointer) {
        // Only allocation can fail here; without memory nothing else would go on either.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, algorithm, nil) == 1 else {
            fatalError("libcrypto could not start a digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest of everything added; the context is spent afterwards.
    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &length)
        return Array(out.prefix(Int(length)))
    }
}

extension DigestContext {
    /// Adds every region of `data`.
    func update(data: some DataProtocol) {
        for region in data.regions { region.withUnsafeBytes { update($0) } }
    }
}
