// rk-fuzz-control: the control protocol's parser under libFuzzer (scripts/fuzz.sh).
//
// One input is one request line as a client could send it. Built with
// `-sanitize=fuzzer -parse-as-library -DRK_FUZZ`, libFuzzer drives `LLVMFuzzerTestOneInput`;
// a plain build replays the files given as arguments (a corpus, a crash input) through the
// same function, so the target always compiles and a finding can be reproduced without
// the fuzzer. Any trap is a finding: the parser, the id recovery, the secret masking, the
// stream-key substitution and the reply's encoding must be total. It links RecordKitControl
// alone (no FFmpeg, X11 or PulseAudio): the capture values' own parsers (`PixelRect.parse`, ...)
// are checked by their unit tests.
import Foundation
import FuzzSupport
import RecordKitControl

enum ControlFuzz {
    static func run(_ bytes: [UInt8]) {
        let encoder = JSONEncoder()
        switch ControlRequestParser.parse(bytes) {
        case .blank:
            break
        case .rejected(let reply):
            _ = try? encoder.encode(reply)
        case .request(let request):
            _ = try? encoder.encode(request)
            if let args = request.args {
                for url in args.outputOptions + args.configuredOutputOptions.compactMap(\.value.text) {  // URLs among them may hold keys
                    let masked = SecretRedactor.redact(url)
                    precondition(SecretRedactor.redact(masked) == masked, "masking is not idempotent")
                    _ = try? RTMPStreamKey.apply("k", to: [url])
                }
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let masked = SecretRedactor.redact(text)
        precondition(SecretRedactor.redact(masked) == masked, "masking is not idempotent")
        _ = ControlRequestParser.recoverID(from: bytes)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    ControlFuzz.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

#if !RK_FUZZ
/// A plain build: replays the files (or directories of files) given as arguments.
@main
struct Replay {
    static func main() { FuzzDriver.replay("rk-fuzz-control", ControlFuzz.run) }
}
#else
// SwiftPM links an executable's entry as `rk_fuzz_control_main` (main is an alias of it): in the
// libFuzzer build, that entry hands over to libFuzzer's own driver.
@_cdecl("rk_fuzz_control_main")
func fuzzEntry(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv, fuzzControlInput)
}
#endif
