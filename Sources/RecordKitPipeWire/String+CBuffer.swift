extension String {
    /// The NUL-terminated text a C function wrote into `buffer` (all of it without a NUL).
    init(cBuffer buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        self = String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
