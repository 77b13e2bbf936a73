// recordd: the RecordKit recording service. Listens on a private Unix socket
// ($XDG_RUNTIME_DIR/recordkit/recordd.sock) and owns the user's recordings (docs/PROTOCOL.md).
import Glibc
import RecordKitMedia
import RecordKitPipeWire
import RecordKitService

if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    print("usage: recordd [--foreground]\n\nThe RecordKit recording service. recordctl starts it on demand; see docs/PROTOCOL.md.")
    exit(0)
}
// The "portal" video source (Wayland) and PipeWire's cameras, MJPEG ones decoded by libavcodec.
PipeWireSources.register(mjpegDecoder: { (try? MJPEGDecoder()).map { $0.decode } })
RecordingProcessMemory.disableTransparentHugePages()  // docs/ENCODING.md, "Transparent huge pages"
RecordingProcessMemory.returnFreedMemoryPeriodically()  // docs/BENCHMARKS.md, "Memory over time"
RecordDaemon.run(detach: !CommandLine.arguments.contains("--foreground"))
