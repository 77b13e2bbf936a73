import RecordKit

/// Carries a handler reference onto its own queue; the runner guarantees serial use.
struct UncheckedHandler: @unchecked Sendable {
    let value: any BroadcastSampleHandler
    init(_ value: any BroadcastSampleHandler) { self.value = value }
}
