import COpenSSL
import Foundation

/// MD5 (RFC 1321) from the system's libcrypto, for what S3 asks it for and nothing secret: a
/// part's `Content-MD5`, the ETags S3 servers answer. Incremental or one-shot, like ``SHA256``.
package struct MD5 {
    private let context = DigestContext(EVP_md5())

    /// A digest of nothing yet.
    package init() {}

    /// Adds `data`.
    package mutating func update(data: some DataProtocol) { context.update(data: data) }

    /// Adds the bytes `bufferPointer` points at.
    package mutating func update(bufferPointer: UnsafeRawBufferPointer) { context.update(bufferPointer) }

    /// The 16-byte digest of everything added.
    package func finalize() -> [UInt8] { context.finalize() }

    /// The 16-byte digest of `data`.
    package static func hash(data: some DataProtocol) -> [UInt8] {
        var digest = MD5()
        digest.update(data: data)
        return digest.finalize()
    }

    /// The 16-byte digest of the bytes `bufferPointer` points at.
    package static func hash(bufferPointer: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = MD5()
        digest.update(bufferPointer: bufferPointer)
        return digest.finalize()
    }
}
