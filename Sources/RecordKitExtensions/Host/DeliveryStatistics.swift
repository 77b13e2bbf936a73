/// What delivering to one extension cost the host, published in the handler's service info at
/// the end (`recordctl status` shows it; the extension benchmark reads it).
struct DeliveryStatistics {
    /// Samples handed to the extension (answered with `done`).
    var delivered = 0
    /// Samples not delivered because every shared slot of their size was held by the extension.
    var droppedNoSlot = 0
    /// Bytes copied into shared memory.
    var bytesCopied: Int64 = 0
    /// Frames handed over in place (capture memory lent, no copy).
    var framesLent = 0
    /// CPU time the host's handler thread spent delivering (copy, messages), in nanoseconds;
    /// waiting for the extension costs none.
    var hostCPUNs: UInt64 = 0
    /// Wall time from sending a sample to its `done`, summed, in nanoseconds.
    var roundTripNs: UInt64 = 0

    /// Service-info entries.
    func serviceInfo(extensionCPUSeconds: Double?) -> [String: String] {
        var info: [String: String] = [
            "delivered": String(delivered),
            "droppedNoSlot": String(droppedNoSlot),
            "bytesCopied": String(bytesCopied),
            "framesLent": String(framesLent),
            "hostDeliveryCPUSeconds": String(format3(Double(hostCPUNs) / 1e9)),
            "meanRoundTripMs": String(format3(delivered > 0 ? Double(roundTripNs) / Double(delivered) / 1e6 : 0)),
        ]
        if let extensionCPUSeconds { info["extensionCPUSeconds"] = format3(extensionCPUSeconds) }
        return info
    }

    private func format3(_ v: Double) -> String {
        let scaled = (v * 1000).rounded()
        let whole = Int64(scaled) / 1000, frac = abs(Int64(scaled) % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - String(frac).count) + String(frac)
    }
}
