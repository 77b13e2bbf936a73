/// A block of immutable bytes shared by reference between handlers without copying.
///
/// The bytes stay valid for as long as any reference to the buffer exists; when the last one
/// goes away the `release` action runs, which returns pooled memory to its pool or frees a codec
/// packet. Handlers must not write through ``bytes``: every handler sees the same memory.
/// A handler that needs the data after its call returned keeps the buffer (or the sample
/// buffer) alive, which is cheap.
public final class MediaBuffer: @unchecked Sendable {
    /// The bytes. Valid while this object is alive; never write through it.
    public let bytes: UnsafeRawBufferPointer
    /// Where ``bytes`` lie in shared memory another process can map, if they do; nil for
    /// ordinary memory. The recorder's own business (lending frames to extensions).
    package let sharedLocation: SharedMemoryLocation?
    private let release: (@Sendable () -> Void)?

    /// Wraps memory owned elsewhere. `release` runs once, when the last reference goes away.
    public convenience init(bytes: UnsafeRawBufferPointer, release: (@Sendable () -> Void)?) {
        self.init(bytes: bytes, sharedLocation: nil, release: release)
    }

    /// Wraps memory owned elsewhere that lies in shared memory at `sharedLocation`.
    package init(bytes: UnsafeRawBufferPointer, sharedLocation: SharedMemoryLocation?, release: (@Sendable () -> Void)?) {
        self.bytes = bytes
        self.sharedLocation = sharedLocation
        self.release = release
    }

    /// Copies `data` into a new buffer that frees itself.
    public convenience init(copying data: some Collection<UInt8>) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 64)
        _ = storage.initializeMemory(as: UInt8.self, from: data)
        let address = UInt(bitPattern: storage.baseAddress)
        self.init(bytes: UnsafeRawBufferPointer(rebasing: storage[0..<data.count])) {
            UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
        }
    }

    /// The number of bytes.
    public var count: Int { bytes.count }

    deinit { release?() }
}
