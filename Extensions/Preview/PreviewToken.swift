/// The secret that every request to a preview server must carry: 256 random bits from the
/// system's cryptographic generator (`getrandom`), as 64 hex digits.
struct PreviewToken: Sendable, Equatable {
    /// The hex text.
    let text: String

    /// A fresh random token.
    static func random() -> PreviewToken {
        var generator = SystemRandomNumberGenerator()
        let words = (0..<4).map { _ in generator.next() as UInt64 }
        return PreviewToken(text: words.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined())
    }

    /// Whether `candidate` is this token, compared in constant time (no early exit on the first
    /// differing byte, so the time taken says nothing about how much of a guess was right).
    func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let a = Array(text.utf8), b = Array(candidate.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<a.count { difference |= a[index] ^ (index < b.count ? b[index] : 0) }
        return difference == 0
    }
}
