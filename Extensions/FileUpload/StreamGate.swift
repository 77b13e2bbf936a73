import RecordKit

/// Holds back the first samples until every expected stream has shown its format, because a
/// container's streams (and their global headers) are fixed when its header is written.
struct StreamGate {
    /// The streams the file should have, in file order.
    let expected: [SampleBufferType]
    /// How long, in broadcast time, to wait for a missing stream before writing without it.
    let patience: MediaTime
    /// The format of each stream seen so far.
    private(set) var formats: [SampleBufferType: EncodedFormat] = [:]
    /// The samples held back, in arrival order.
    private(set) var pending: [SampleBuffer] = []
    private var earliest: MediaTime?
    private var latest: MediaTime?

    /// Creates a gate for `expected` streams.
    init(expected: [SampleBufferType], patience: MediaTime = MediaTime(value: 5, timescale: 1)) {
        self.expected = expected
        self.patience = patience
    }

    /// Holds `sample`, whose format is `format`.
    mutating func hold(_ sample: SampleBuffer, format: EncodedFormat) {
        if formats[sample.type] == nil { formats[sample.type] = format }
        pending.append(sample)
        let time = sample.timelineTime
        if earliest.map({ time < $0 }) ?? true { earliest = time }
        if latest.map({ time > $0 }) ?? true { latest = time }
    }

    /// Whether every expected stream has delivered a sample.
    var isComplete: Bool { expected.allSatisfy { formats[$0] != nil } }

    /// Whether samples have been held for longer than ``patience`` of broadcast time.
    var hasWaitedTooLong: Bool {
        guard let earliest, let latest else { return false }
        let waited = latest.converted(to: 1_000_000).value - earliest.converted(to: 1_000_000).value
        return waited > patience.converted(to: 1_000_000).value
    }

    /// The streams that have a format, in file order.
    var present: [(type: SampleBufferType, format: EncodedFormat)] {
        expected.compactMap { type in formats[type].map { (type, $0) } }
    }

    /// The expected streams that never delivered a sample.
    var missing: [SampleBufferType] { expected.filter { formats[$0] == nil } }

    /// Returns the held samples and forgets them.
    mutating func release() -> [SampleBuffer] {
        defer { pending = [] }
        return pending
    }
}
