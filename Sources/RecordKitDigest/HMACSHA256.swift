import COpenSSL
import Foundation

/// HMAC-SHA256 (RFC 2104) from the system's libcrypto: SigV4's signing keys and signature.
package enum HMACSHA256 {
    /// The 32-byte authentication code of `data` under `key`.
    package static func authenticationCode(for data: some DataProtocol, key: some DataProtocol) -> [UInt8] {
        let keyBytes = [UInt8](key), dataBytes = [UInt8](data)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = keyBytes.withUnsafeBytes { k in
            dataBytes.withUnsafeBufferPointer { d in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), d.baseAddress, d.count, &out, &length)
            }
        }
        // HMAC() fails only without memory (or for an unknown digest, which EVP_sha256 is not).
        precondition(done != nil, "libcrypto's HMAC failed")
        return Array(out.prefix(Int(length)))
    }
}
