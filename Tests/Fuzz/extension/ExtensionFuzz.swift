// rk-fuzz-extension: the extension protocol's parser under libFuzzer (scripts/fuzz.sh).
//
// One input is one datagram as either end of an extension's socket could send it: the host
// parses it as an ``ExtensionMessage`` (what an untrusted extension sends), the extension SDK
// as a ``HostMessage``. A message that parses must serialize and parse back to itself. Built
// with `-sanitize=fuzzer -parse-as-library -DRK_FUZZ` for libFuzzer; a plain build replays
// the files given as arguments.
import Foundation
import FuzzSupport
import RecordKitExtensionSDK

enum ExtensionFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes) else { return }
        if let message = try? ExtensionMessage(json: json) {
            let again = try? ExtensionMessage(json: JSONParser.parse(Array(message.jsonValue.serialized.utf8)))
            precondition(again == message, "an extension message does not survive a round trip")
        }
        if let message = try? HostMessage(json: json) {
            precondition((try? HostMessage(json: JSONParser.parse(Array(message.jsonValue.serialized.utf8)))) != nil,
                         "a host message does not survive a round trip")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExtensionInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    ExtensionFuzz.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

#if !RK_FUZZ
/// A plain build: replays the files (or directories of files) given as arguments.
@main
struct Replay {
    static func main() { FuzzDriver.replay("rk-fuzz-extension", ExtensionFuzz.run) }
}
#else
// SwiftPM links an executable's entry as `rk_fuzz_extension_main` (main is an alias of it): in the
// libFuzzer build, that entry hands over to libFuzzer's own driver.
@_cdecl("rk_fuzz_extension_main")
func fuzzEntry(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv, fuzzExtensionInput)
}
#endif
