import Glibc

/// The V4L2 video devices of this machine, from sysfs (`/sys/class/video4linux/*/name`):
/// listed so `recordctl cameras` shows every camera, recorded only through PipeWire (which
/// exposes a V4L2 camera as a node when WirePlumber runs). No device, no entries.
enum V4L2Devices {
    /// The devices, sorted by path; empty when there are none (or no sysfs).
    static func list() -> [CameraInfo] {
        guard let dir = opendir("/sys/class/video4linux") else { return [] }
        defer { closedir(dir) }
        var devices: [CameraInfo] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix("video") else { continue }
            devices.append(CameraInfo(api: "v4l2", name: "/dev/" + name, description: readLine("/sys/class/video4linux/\(name)/name"),
                                      detail: "v4l2", recordable: false))
        }
        return devices.sorted { $0.name < $1.name }
    }

    private static func readLine(_ path: String) -> String {
        guard let f = fopen(path, "r") else { return "" }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), f) != nil else { return "" }
        let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
