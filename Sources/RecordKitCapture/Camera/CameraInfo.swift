/// One camera as `recordctl cameras` lists it.
package struct CameraInfo: Sendable, Codable, Equatable {
    /// Where it was found: "pipewire" (a `Video/Source` node of PipeWire's registry) or "v4l2"
    /// (a `/dev/video*` device).
    package var api: String
    /// The name `--camera` accepts: the PipeWire `node.name`, or the device path for V4L2.
    package var name: String
    /// A human description (`node.description`, the V4L2 card name); may be empty.
    package var description: String
    /// The PipeWire node id, for PipeWire cameras.
    package var nodeID: UInt32?
    /// The PipeWire `media.role` ("Camera" for cameras), or the backing device's API
    /// ("v4l2", "libcamera") when PipeWire names it; empty when neither is known.
    package var detail: String
    /// Whether `--camera` can record it: PipeWire nodes yes; V4L2 devices are listed only
    /// (record them through PipeWire, which exposes them as nodes when WirePlumber runs).
    package var recordable: Bool
    /// What a PipeWire camera offers that RecordKit reads, one entry per format and size
    /// ("MJPEG 1280x720 30 fps", ``CameraFormatOffer``), in the camera's order; nil when not
    /// known (V4L2 devices, a node whose port could not be asked).
    package var formats: [String]?

    /// Describes a camera.
    package init(api: String, name: String, description: String, nodeID: UInt32? = nil, detail: String = "", recordable: Bool,
                 formats: [String]? = nil) {
        self.formats = formats
        self.api = api
        self.name = name
        self.description = description
        self.nodeID = nodeID
        self.detail = detail
        self.recordable = recordable
    }
}
