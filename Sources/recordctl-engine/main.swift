import Foundation
import Glibc
import RecordCtlSupport
import RecordKitMedia
import RecordKitPipeWire
import RecordKitService

// recordctl-engine: the verbs of `recordctl` that need FFmpeg, X11 or PulseAudio in process
// (`record`, `trim`, `extensions`, `monitors`, `audio-sources`). recordctl parses and checks the
// command line, then becomes this program (exec) with the request in the environment
// (EngineRequest); run by hand, it says so and exits 64.

let text = ProcessInfo.processInfo.environment[EngineRequest.environmentKey]
unsetenv(EngineRequest.environmentKey)  // not for the extensions and helpers this process starts
guard let text, let request = try? EngineRequest.decode(text) else {
    Console.error("recordctl-engine runs the in-process verbs of recordctl; run `recordctl record|trim|extensions|monitors|audio-sources …` instead")
    exit(ExitCodes.usage)
}
// The "portal" video source (Wayland) and PipeWire's cameras, MJPEG ones decoded by libavcodec.
PipeWireSources.register(mjpegDecoder: { (try? MJPEGDecoder()).map { $0.decode } })
RecordingProcessMemory.disableTransparentHugePages()  // docs/ENCODING.md, "Transparent huge pages"
RecordingProcessMemory.returnFreedMemoryPeriodically()  // docs/BENCHMARKS.md, "Memory over time"
exit(EngineVerbs.run(request))
