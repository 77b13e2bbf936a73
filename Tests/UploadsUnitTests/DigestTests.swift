import Foundation
import RecordKitDigest
import RecordKitUploads
import XCTest

/// RecordKitDigest against published vectors: FIPS 180-4's SHA-256 examples, RFC 1321's MD5
/// suite, RFC 4231's HMAC-SHA256 cases; and incremental updates against one-shot hashes.
final class DigestTests: XCTestCase {
    func testSHA256Vectors() {
        XCTAssertEqual(SigV4Signer.hex(SHA256.hash(data: Data())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SigV4Signer.hex(SHA256.hash(data: Data("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SigV4Signer.hex(SHA256.hash(data: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testMD5Vectors() {
        XCTAssertEqual(SigV4Signer.hex(MD5.hash(data: Data())), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(SigV4Signer.hex(MD5.hash(data: Data("abc".utf8))), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(SigV4Signer.hex(MD5.hash(data: Data("message digest".utf8))), "f96b697d7cb7938d525a2f31aaf161d0")
        let bytes = Array("12345678901234567890123456789012345678901234567890123456789012345678901234567890".utf8)
        XCTAssertEqual(SigV4Signer.hex(bytes.withUnsafeBytes { MD5.hash(bufferPointer: $0) }), "57edf4a22be3c955ac49da2e2107b67a")
    }

    func testHMACSHA256Vectors() {
        // RFC 4231, test cases 1 and 2.
        XCTAssertEqual(SigV4Signer.hex(HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(SigV4Signer.hex(HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Case 6: a key longer than the block (hashed first).
        XCTAssertEqual(SigV4Signer.hex(HMACSHA256.authenticationCode(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                                                         key: [UInt8](repeating: 0xaa, count: 131))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    func testIncrementalUpdatesEqualOneShot() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<100_003).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let sha = SHA256(), md5 = MD5()
        var offset = 0
        for size in [0, 1, 63, 64, 65, 4096, 50_000] + [Int](repeating: 7_000, count: 10) where offset < data.count {
            let piece = data[offset..<min(data.count, offset + size)]
            sha.update(data: piece)
            piece.withUnsafeBytes { md5.update(bufferPointer: $0) }
            offset += piece.count
        }
        sha.update(data: data[offset...])
        data[offset...].withUnsafeBytes { md5.update(bufferPointer: $0) }
        XCTAssertEqual(sha.finalize(), SHA256.hash(data: data))
        XCTAssertEqual(md5.finalize(), MD5.hash(data: data))
        XCTAssertEqual(SHA256.hash(data: data).count, 32)
        XCTAssertEqual(MD5.hash(data: data).count, 16)
    }
}
