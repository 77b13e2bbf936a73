/// One obs-websocket event: its type, the subscription bit a client needs to receive it, and its data.
package struct OBSEvent: Sendable, Equatable {
    package var type: String
    package var intent: OBSEventSubscription
    package var data: OBSValue?

    package init(type: String, intent: OBSEventSubscription, data: OBSValue? = nil) {
        self.type = type
        self.intent = intent
        self.data = data
    }

    package static func == (a: OBSEvent, b: OBSEvent) -> Bool {
        a.type == b.type && a.intent.rawValue == b.intent.rawValue && a.data == b.data
    }
}
