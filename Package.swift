// swift-tools-version:6.0
// RecordKit: the ReplayKit model on Linux. See docs/ARCHITECTURE.md for what each target is
// and what it may depend on (its "Parts").
import PackageDescription

let package = Package(
    name: "RecordKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RecordKit", targets: ["RecordKit"]),
        // What an out-of-process extension links: RecordKit plus the protocol runtime (docs/EXTENSIONS.md).
        .library(name: "RecordKitExtensionSDK", targets: ["RecordKitExtensionSDK"]),
        .executable(name: "recordctl", targets: ["recordctl"]),
        // The engine behind `recordctl record`, `trim`, `extensions`, `monitors` and `audio-sources`:
        // recordctl runs it (exec, same process) from its own directory (docs/ARCHITECTURE.md).
        .executable(name: "recordctl-engine", targets: ["recordctl-engine"]),
        .executable(name: "recordd", targets: ["recordd"]),
    ],
    dependencies: [
        // Declarative command line (one type per verb), Apple's well-kept parser rather than our own.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The SDK reference (`swift package generate-documentation --target RecordKit`, scripts/docs.sh):
        // Apple's own DocC plugin; nothing links against it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The config file ($XDG_CONFIG_HOME/recordkit/config.toml): TOML with line numbers in errors.
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // The opt-in Prometheus endpoint's registry and text format (docs/METRICS.md).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Every loopback web surface (preview, obs-websocket, metrics) is served by RecordKitWeb on
        // SwiftNIO: a bounded HTTP/1 parser with configurable limits and a bounded WebSocket frame
        // decoder, with every other limit a handler of our own in a pipeline we own (docs/WEB.md).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Uploads: S3's XML replies (docs/UPLOADS.md). Their HTTP is the system's libcurl (CCurl)
        // and SigV4 and the part checksums use RecordKitDigest (libcrypto).
        .package(url: "https://github.com/CoreOffice/XMLCoder", from: "0.18.2"),
    ],
    targets: [
        // MARK: SDK: what an extension author imports. Foundation only.
        .target(name: "RecordKit", path: "Sources/RecordKit"),
        // One copy of the small system mechanisms every part needs: atomic file replacement, the
        // videos directory and default file names, the monotonic clock. Glibc only.
        .target(name: "RecordKitSupport", path: "Sources/RecordKitSupport"),

        // MARK: C modules (system libraries from Debian packages, via pkg-config).
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        .systemLibrary(
            name: "CX11", path: "Sources/CX11",
            pkgConfig: "x11 xext xfixes xdamage xscrnsaver xrandr",
            providers: [.apt(["libx11-dev", "libxext-dev", "libxfixes-dev", "libxdamage-dev", "libxss-dev", "libxrandr-dev"])]),
        // libpulse's .pc adds -D_REENTRANT -pthread, which SwiftPM warns about on every build; its
        // headers live in /usr/include, so the modulemap links it directly (Debian: libpulse-dev).
        .systemLibrary(name: "CPulse", path: "Sources/CPulse"),
        // The one compiled C shim: what needs _GNU_SOURCE, CMSG_* or sockaddr_un.
        .target(name: "CShims", path: "Sources/CShims"),
        // The ScreenCast portal client (sd-bus) and PipeWire video streams (libpipewire-0.3), in C:
        // sd_bus_call_method, sd_bus_message_append and the SPA pod builders are variadic macros
        // Swift cannot import (docs/WAYLAND.md). libpipewire's .pc adds -D_REENTRANT, which SwiftPM
        // warns about, so its two include directories are given here (Debian: libpipewire-0.3-dev,
        // libsystemd-dev).
        .target(name: "CPipeWire", path: "Sources/CPipeWire",
                cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2"])],
                linkerSettings: [.linkedLibrary("pipewire-0.3"), .linkedLibrary("systemd")]),
        // BGR0 -> yuv420p BT.709 in one vectorized pass (0.42x libswscale's time at 1080p: docs/BENCHMARKS.md),
        // and the camera picture's bilinear scaling to its corner (CameraPictureScaler).
        .target(name: "CColorConversion", path: "Sources/CColorConversion"),
        // The system's OpenSSL libcrypto (Debian: libssl-dev): SHA-256, MD5 and HMAC for
        // RecordKitDigest. (Not swift-crypto: it compiles a BoringSSL of its own, about 4 minutes
        // of a clean build on a 2-core machine, for three digests the system already has.)
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The system's libcurl (Debian: libcurl4-openssl-dev) for the uploads' HTTP, with the one C
        // function that sets a request's options (curl_easy_setopt is variadic: Swift cannot call it).
        // (Not async-http-client: it compiles SwiftNIO's BoringSSL, HTTP/2 and extras, about a third
        // of a clean build on a 2-core machine, and swift-distributed-tracing, whose 1.7.3 warns on
        // every build; docs/UPLOADS.md.)
        .target(name: "CCurl", path: "Sources/CCurl", linkerSettings: [.linkedLibrary("curl")]),
        // SHA256, MD5 and HMACSHA256 over COpenSSL: S3/SigV4, the upload queue's file identity,
        // obs-websocket's authentication.
        .target(name: "RecordKitDigest", dependencies: ["COpenSSL"], path: "Sources/RecordKitDigest"),

        // MARK: Extensions: the SDK an out-of-process extension links, and the host side.
        .target(name: "RecordKitExtensionSDK", dependencies: ["RecordKitSupport", "RecordKit", "CShims"],
                path: "Sources/RecordKitExtensionSDK"),
        .target(name: "RecordKitExtensions", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitExtensionSDK", "RecordKitPipeline", "RecordKitControl", "CShims"],
                path: "Sources/RecordKitExtensions"),

        // MARK: Platform parts.
        // Each source's folder declares its options (`*-source.json`, the manifest format; CaptureSourceDeclarations).
        .target(name: "RecordKitCapture", dependencies: ["RecordKitSupport", "RecordKit", "CX11", "CPulse", "CShims", "CColorConversion"],
                path: "Sources/RecordKitCapture", resources: [.embedInCode("Screen/screen-source.json"), .embedInCode("Audio/pulse-source.json"),
                                                         .embedInCode("Camera/camera-source.json")]),
        // The Wayland screen through the ScreenCast portal and PipeWire: a video source registered
        // as "portal" by the executables (VideoSourceRegistry), never named by the pipeline.
        .target(name: "RecordKitPipeWire", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitCapture", "CPipeWire"],
                path: "Sources/RecordKitPipeWire"),
        .target(name: "RecordKitMedia", dependencies: ["RecordKitSupport", "RecordKit", "CFFmpeg", "CColorConversion"],
                path: "Sources/RecordKitMedia"),
        .target(name: "RecordKitPipeline", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitCapture", "RecordKitMedia", "RecordKitControl"],
                path: "Sources/RecordKitPipeline"),

        // MARK: The control protocol's values and its client side: what the thin `recordctl`
        // links. Foundation and CShims only: never FFmpeg, X11 or PulseAudio (DependencyRules).
        .target(name: "RecordKitControl", dependencies: ["CShims"], path: "Sources/RecordKitControl"),

        // MARK: Control surfaces: obs-websocket 5's protocol (codecs, authentication, op
        // dispatch, the requests and events mapped onto the service's one request API), apart from the
        // transport, so it is tested without a socket.
        .target(name: "RecordKitOBSWebSocket",
                dependencies: ["RecordKitControl", "RecordKitDigest"],
                path: "Sources/RecordKitOBSWebSocket"),

        // The surfaces recordd runs beside its socket (hotkeys with notifications; obs-websocket), each a
        // client of the service's one request API (LocalControlClient).
        .target(name: "RecordKitSurfaces",
                dependencies: ["RecordKitSupport", "RecordKitService", "RecordKitControl", "RecordKitConfig", "RecordKitCapture", "RecordKitMedia",
                               "RecordKitOBSWebSocket", "RecordKitWeb",
                               .product(name: "Prometheus", package: "swift-prometheus")],
                path: "Sources/RecordKitSurfaces"),

        // MARK: The one hardened HTTP/WebSocket server of every loopback surface (docs/WEB.md).
        // SwiftNIO only: never FFmpeg, X11 or PulseAudio, so the fuzzer builds it alone.
        .target(name: "RecordKitWeb",
                dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                               .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio")],
                path: "Sources/RecordKitWeb"),

        // MARK: The service: sessions, recovery, the server side of the control protocol (used by recordd
        // and recordctl-engine).
        // It names no concrete handler: every handler comes from the catalog by name.
        .target(name: "RecordKitService",
                dependencies: ["RecordKitSupport", "RecordKit", "RecordKitCapture", "RecordKitControl", "RecordKitPipeline", "RecordKitExtensions", "RecordKitUploads", "CShims"],
                path: "Sources/RecordKitService"),

        // MARK: Built-in upload extensions (public SDK + media for muxing).
        .target(name: "FileUploadExtension", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitMedia"],
                path: "Extensions/FileUpload", resources: [.embedInCode("manifest.json")]),
        .target(name: "RTMPUploadExtension", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitMedia"],
                path: "Extensions/RTMPUpload", resources: [.embedInCode("manifest.json"), .embedInCode("srt-manifest.json")]),
        .target(name: "ReplayBufferExtension", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitMedia"],
                path: "Extensions/ReplayBuffer", resources: [.embedInCode("manifest.json")]),
        // The live preview and review page (docs/PREVIEW.md): a loopback web server fed by the shared encode.
        .target(name: "PreviewExtension", dependencies: ["RecordKit", "RecordKitMedia", "RecordKitWeb"],
                path: "Extensions/Preview", resources: [.embedInCode("manifest.json"), .embedInCode("page.html")]),
        // The list of built-in extensions: the one place that names a concrete handler.
        .target(name: "RecordKitBuiltins", dependencies: ["RecordKit", "RecordKitExtensions", "FileUploadExtension", "RTMPUploadExtension",
                                                         "ReplayBufferExtension", "PreviewExtension"],
                path: "Extensions/Builtins"),

        // MARK: Uploads the service owns: S3 multipart (SigV4), presigned URL PUT, tus 1.0, the
        // persistent queue. RecordKit and packages only: never capture, media or the pipeline.
        .target(name: "RecordKitUploads",
                dependencies: ["RecordKitSupport", "RecordKit", "CShims", "CCurl", "RecordKitDigest",
                               .product(name: "XMLCoder", package: "XMLCoder")],
                path: "Sources/RecordKitUploads"),

        // MARK: The config file and profiles (kept out of recordctl, which stays a thin command line).
        .target(name: "RecordKitConfig",
                dependencies: ["RecordKitSupport", "RecordKitControl", .product(name: "TOMLKit", package: "TOMLKit")],
                path: "Sources/RecordKitConfig"),

        // MARK: Command line: a thin client and an engine.
        // What both recordctl binaries share: the console, the exit codes, the engine's requests.
        .target(name: "RecordCtlSupport", dependencies: ["RecordKitControl"], path: "Sources/RecordCtlSupport"),
        // `recordctl`: parses every verb, runs the service verbs itself, and hands the in-process
        // verbs to recordctl-engine. Links no FFmpeg, X11 or PulseAudio (it starts in ~5 ms, not ~50).
        .executableTarget(
            name: "recordctl",
            dependencies: [
                "RecordKitControl", "RecordCtlSupport", "RecordKitConfig",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/recordctl"),
        // `recordctl-engine`: `record` (foreground recording), `trim`, `extensions`, `monitors`,
        // `audio-sources`, in process. Run only by recordctl, with the request it parsed.
        .executableTarget(
            name: "recordctl-engine",
            dependencies: [
                "RecordKitService", "RecordCtlSupport", "RecordKitControl",
                "RecordKitBuiltins",  // the built-in extensions, handed to the service (it links none)
                "RecordKitMedia",  // `recordctl trim` (MovieTrimmer), in process
                "RecordKitPipeWire",  // registers the "portal" video source and the cameras (with RecordKitMedia's MJPEG decoder)
            ],
            path: "Sources/recordctl-engine"),
        // recordd hands RecordKitMedia's MJPEG decoder to the PipeWire cameras (RecordKitPipeWire links no FFmpeg).
        .executableTarget(name: "recordd", dependencies: ["RecordKitService", "RecordKitBuiltins", "RecordKitSurfaces", "RecordKitPipeWire", "RecordKitConfig",
                                                          "RecordKitMedia"], path: "Sources/recordd"),
        // Test support: an X11 window of a known colour (and flashing for sync tests).
        .executableTarget(name: "rk-testwindow", dependencies: ["CX11"], path: "Sources/rk-testwindow"),
        // Test support: flashes a window and beeps into a PulseAudio sink at the same instant (A/V sync tests).
        .executableTarget(name: "rk-flashbeep", dependencies: ["RecordKitSupport", "CX11", "CPulse", "CShims"], path: "Sources/rk-flashbeep"),

        // The tutorial's example extension (docs/TUTORIAL-first-extension.md), built against the public SDK only.
        .executableTarget(name: "frame-stats", dependencies: ["RecordKitExtensionSDK"],
                          path: "Extensions/FrameStats", exclude: ["manifest.json"]),
        // Benchmark: what delivering raw frames to an out-of-process extension costs (scripts/benchmark-extension.py).
        .executableTarget(name: "rk-extension-bench", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitCapture", "RecordKitPipeline", "RecordKitExtensions", "CShims"],
                          path: "Sources/rk-extension-bench"),
        // Benchmark: what handing a packet to a live stream costs the releasing thread (scripts/benchmark-runner.sh).
        .executableTarget(name: "rk-runner-bench", dependencies: ["RecordKit", "RecordKitMedia", "RecordKitPipeline", "RTMPUploadExtension", "CShims"],
                          path: "Sources/rk-runner-bench"),
        // Test support: an extension that misbehaves on purpose (crash, hang, memory, garbage) or logs its calls.
        .executableTarget(name: "rk-test-extension", dependencies: ["RecordKit", "RecordKitExtensionSDK"],
                          path: "Tests/Fixtures/extensions/rk-test-extension"),

        // MARK: Fuzz targets: scripts/fuzz.sh builds them with libFuzzer
        // (-sanitize=fuzzer -parse-as-library -DRK_FUZZ); a plain build makes each a replayer of
        // its corpus (Tests/Fuzz/corpus), so they always compile.
        // What they share: the replay `main` and the hand-over to libFuzzer's driver (Foundation only).
        .target(name: "FuzzSupport", path: "Tests/Fuzz/Support"),
        .executableTarget(name: "rk-fuzz-control", dependencies: ["FuzzSupport", "RecordKitControl"], path: "Tests/Fuzz/control"),
        .executableTarget(name: "rk-fuzz-extension", dependencies: ["FuzzSupport", "RecordKit", "RecordKitExtensionSDK"], path: "Tests/Fuzz/extension"),
        // The loopback web server's request path and WebSocket framing: RecordKitWeb and
        // NIO's EmbeddedChannel only, no FFmpeg or X11.
        .executableTarget(name: "rk-fuzz-web", dependencies: ["FuzzSupport", "RecordKitWeb", .product(name: "NIOEmbedded", package: "swift-nio"),
                                                              .product(name: "NIOCore", package: "swift-nio")],
                          path: "Tests/Fuzz/web"),

        // MARK: Test support: what several test targets share.
        .target(name: "MediaTestSupport", dependencies: ["RecordKit", "RecordKitMedia"], path: "Tests/Support/MediaTestSupport"),
        .target(name: "ExtensionTestSupport", dependencies: ["RecordKit", "RecordKitExtensions"], path: "Tests/Support/ExtensionTestSupport"),
        .target(name: "HandlerTestSupport", dependencies: ["RecordKit"], path: "Tests/Support/HandlerTestSupport"),

        // MARK: The fast tier: one test target per module, no display, audio server or network
        // server (`scripts/test.sh --fast` runs every `*UnitTests` target; docs/TESTING.md).
        .testTarget(name: "PipelineUnitTests", dependencies: ["RecordKitSupport", "RecordKit", "RecordKitPipeline", "CShims", "HandlerTestSupport"], path: "Tests/PipelineUnitTests"),
        .testTarget(name: "MediaUnitTests",
                    dependencies: ["RecordKit", "RecordKitCapture", "RecordKitMedia", "RecordKitPipeline", "CColorConversion", "CFFmpeg", "MediaTestSupport", "RecordKitSupport"],
                    path: "Tests/MediaUnitTests"),
        .testTarget(name: "CaptureUnitTests", dependencies: ["RecordKitCapture", "RecordKitSupport"], path: "Tests/CaptureUnitTests"),
        .testTarget(name: "ExtensionsUnitTests",
                    dependencies: ["RecordKit", "RecordKitMedia", "RecordKitExtensions", "RecordKitExtensionSDK", "RecordKitService", "RecordKitBuiltins",
                                   "RecordKitCapture", "RecordKitPipeline",
                                   "FileUploadExtension", "RTMPUploadExtension", "ReplayBufferExtension", "PreviewExtension", "CFFmpeg",
                                   "ExtensionTestSupport", "MediaTestSupport"],
                    path: "Tests/ExtensionsUnitTests"),
        // The control surfaces' protocol layers alone (no rig, no server): obs-websocket's codecs, authentication, op dispatch.
        .testTarget(name: "ControlSurfacesUnitTests", dependencies: ["RecordKitOBSWebSocket", "RecordKitControl"],
                    path: "Tests/ControlSurfacesUnitTests"),
        .testTarget(name: "ServiceUnitTests", dependencies: ["RecordKitService", "RecordKit", "RecordKitCapture", "RecordKitControl", "RecordKitPipeline",
                                                             "CShims", "ExtensionTestSupport"], path: "Tests/ServiceUnitTests"),

        // MARK: Tests on the rig (real Xvfb, real PulseAudio, nginx-rtmp; see scripts/rig.sh).
        .testTarget(name: "RecordKitTests",
                    dependencies: ["RecordKit", "RecordKitCapture", "RecordKitMedia", "RecordKitPipeline", "FileUploadExtension", "RTMPUploadExtension", "RecordKitService", "CShims", "ReplayBufferExtension",
                                   "RecordKitExtensions", "RecordKitExtensionSDK", "RecordKitBuiltins", "PreviewExtension",
                                   "CColorConversion", "CFFmpeg", "MediaTestSupport", "ExtensionTestSupport", "HandlerTestSupport"],
                    path: "Tests/RecordKitTests"),
        .testTarget(name: "EndToEndTests", dependencies: [], path: "Tests/EndToEndTests"),
        // RecordKitWeb alone, over real sockets on 127.0.0.1 in process (no rig).
        .testTarget(name: "WebUnitTests", dependencies: ["RecordKitWeb"], path: "Tests/WebUnitTests"),
        .testTarget(name: "SupportUnitTests", dependencies: ["RecordKitSupport"], path: "Tests/SupportUnitTests"),
        .testTarget(name: "UploadsUnitTests", dependencies: ["RecordKitUploads", "RecordKitDigest"], path: "Tests/UploadsUnitTests"),
        .testTarget(name: "ConfigUnitTests", dependencies: ["RecordKitConfig", "RecordKitControl"], path: "Tests/ConfigUnitTests"),
    ]
)
