/// The event categories of obs-websocket 5 (`EventSubscription`), a bitmask a client chooses in
/// Identify and Reidentify. A client receives an event only when its bitmask has the event's bit.
package struct OBSEventSubscription: OptionSet, Sendable {
    package let rawValue: Int64
    package init(rawValue: Int64) { self.rawValue = rawValue }

    package static let general = OBSEventSubscription(rawValue: 1 << 0)
    package static let config = OBSEventSubscription(rawValue: 1 << 1)
    package static let scenes = OBSEventSubscription(rawValue: 1 << 2)
    package static let inputs = OBSEventSubscription(rawValue: 1 << 3)
    package static let transitions = OBSEventSubscription(rawValue: 1 << 4)
    package static let filters = OBSEventSubscription(rawValue: 1 << 5)
    package static let outputs = OBSEventSubscription(rawValue: 1 << 6)
    package static let sceneItems = OBSEventSubscription(rawValue: 1 << 7)
    package static let mediaInputs = OBSEventSubscription(rawValue: 1 << 8)
    package static let vendors = OBSEventSubscription(rawValue: 1 << 9)
    package static let ui = OBSEventSubscription(rawValue: 1 << 10)
    /// Every category that is not high volume: the default when Identify names none.
    package static let all = OBSEventSubscription(rawValue: (1 << 11) - 1)
}
