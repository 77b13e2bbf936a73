/// How a file is cut into multipart parts: S3 allows 10,000 parts of 5 MiB to 5 GiB (the last
/// may be smaller), so the part size grows from the preferred one (16 MiB by default) in whole
/// MiB until the file fits. Pure value.
package struct PartPlan: Sendable, Equatable {
    /// Bytes per part (the last part holds the rest).
    package var partSize: Int64
    /// Number of parts (at least 1, also for an empty file).
    package var count: Int
    /// The file's size in bytes.
    package var fileSize: Int64

    package static let mib: Int64 = 1 << 20
    package static let defaultPartSize: Int64 = 16 * mib
    package static let maxParts: Int64 = 10_000
    package static let minPartSize: Int64 = 5 * mib
    package static let maxPartSize: Int64 = 5 * 1024 * mib

    /// The plan for `fileSize` bytes with parts of about `preferred` bytes.
    package init(fileSize: Int64, preferred: Int64 = PartPlan.defaultPartSize) {
        var size = max(Self.minPartSize, preferred)
        let needed = (fileSize + Self.maxParts - 1) / Self.maxParts
        if needed > size { size = (needed + Self.mib - 1) / Self.mib * Self.mib }
        size = min(size, Self.maxPartSize)
        self.partSize = size
        self.fileSize = fileSize
        self.count = max(1, Int((fileSize + size - 1) / size))
    }

    /// The byte range of part `number` (1-based, as S3 numbers them).
    package func range(of number: Int) -> Range<Int64> {
        let start = Int64(number - 1) * partSize
        return start..<min(fileSize, start + partSize)
    }
}
