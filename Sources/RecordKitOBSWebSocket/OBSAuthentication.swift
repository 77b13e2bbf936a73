import Foundation
import RecordKitDigest

/// The SHA-256 challenge of obs-websocket 5: the server sends a random salt and challenge in
/// Hello; the client proves it knows the password with
/// `base64(sha256(base64(sha256(password + salt)) + challenge))`. A fresh challenge per
/// connection, so a recorded answer is worth nothing on another.
package struct OBSAuthentication: Sendable {
    /// The salt (base64 of 32 random bytes); what makes the secret differ from the password's hash.
    package let salt: String
    /// The challenge (base64 of 32 random bytes), new for each connection.
    package let challenge: String
    private let expected: [UInt8]

    /// A challenge for `password` with a fresh salt and challenge.
    package init(password: String) {
        self.init(password: password, salt: Self.randomBase64(), challenge: Self.randomBase64())
    }

    /// A challenge with the given salt and challenge (tests, the protocol's own examples).
    package init(password: String, salt: String, challenge: String) {
        self.salt = salt
        self.challenge = challenge
        expected = Array(Self.answer(password: password, salt: salt, challenge: challenge).utf8)
    }

    /// The `authentication` object of Hello.
    package var helloField: OBSValue { ["challenge": .string(challenge), "salt": .string(salt)] }

    /// Whether `answer` is right; compares in constant time.
    package func verify(_ answer: String) -> Bool {
        let given = Array(answer.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<given.count { difference |= given[i] ^ expected[i] }
        return difference == 0
    }

    /// What a client computes from the password, salt and challenge.
    package static func answer(password: String, salt: String, challenge: String) -> String {
        let secret = Data(SHA256.hash(data: Data((password + salt).utf8))).base64EncodedString()
        return Data(SHA256.hash(data: Data((secret + challenge).utf8))).base64EncodedString()
    }

    /// A new password: 24 letters and digits from the system's random source (~143 bits).
    package static func generatePassword() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        var rng = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))] })
    }

    private static func randomBase64() -> String {
        var rng = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }).base64EncodedString()
    }
}
