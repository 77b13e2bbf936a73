import CX11

/// One window property as the X server returned it (`XGetWindowProperty`), owned by Swift.
struct XWindowProperty {
    /// The property's type atom.
    let type: UInt
    /// 8, 16 or 32: the size of one item as the server stores it.
    let format: Int32
    /// The items. Xlib hands format-32 data over as C `long`s, so a format-32 item is one `UInt`
    /// here; format-8 items are bytes.
    let items: [UInt]
    /// The bytes of a format-8 property (empty otherwise).
    let bytes: [UInt8]

    /// Reads up to `maxItems` items of `property` on `window`; nil when it is absent or the
    /// window vanished (the caller's X error trap sees the error).
    init?(_ connection: XDisplayConnection, window: UInt, property: UInt, maxItems: Int) {
        var actualType: UInt = 0
        var actualFormat: Int32 = 0
        var itemCount: UInt = 0, bytesAfter: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let status = XGetWindowProperty(connection.display, window, property, 0, maxItems, 0,
                                        UInt(AnyPropertyType), &actualType, &actualFormat,
                                        &itemCount, &bytesAfter, &data)
        defer { if let data { XFree(data) } }
        guard status == Success, actualType != 0 else { return nil }
        type = actualType
        format = actualFormat
        let count = Int(itemCount)
        if actualFormat == 32, let data {
            items = UnsafeRawPointer(data).withMemoryRebound(to: UInt.self, capacity: count) {
                Array(UnsafeBufferPointer(start: $0, count: count))
            }
            bytes = []
        } else if actualFormat == 8, let data {
            items = []
            bytes = Array(UnsafeBufferPointer(start: data, count: count))
        } else {
            items = []
            bytes = []
        }
    }
}
