import COpenSSL

/// HMAC-SHA256 (RFC 2104) from the system's libcrypto: SigV4's signing keys and signature.
package enum HMACSHA256 {
    /// The 32-byte authentication code of `data` under `key`.
    package static func authenticationCode(for data: [UInt8], key: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { out, count in
            var length: UInt32 = 0
            let done = key.withUnsafeBytes { k in
                data.withUnsafeBufferPointer { d in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), d.baseAddress, d.count, out.baseAddress, &length)
                }
            }
            // HMAC() fails only without memory (or for an unknown digest, which EVP_sha256 is not).
            precondition(done != nil, "libcrypto's HMAC failed")
            count = Int(length)
        }
    }
}
