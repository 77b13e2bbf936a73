// rk-fuzz-extension: the extension protocol's parser under libFuzzer (scripts/fuzz.sh).
//
// One input is one datagram as either end of an extension's socket could send it: the host
// parses it as an ``ExtensionMessage`` (what an untrusted extension sends), the extension SDK
// as a ``HostMessage``. A message that parses must serialize and parse back to itself. Built
// with `-sanitize=fuzzer -parse-as-library -DRK_FUZZ` for libFuzzer; a plain build replays
// the files given as arguments.
import Foundation
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
for path in CommandLine.arguments.dropFirst() {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: path)).map { $0.sorted().map { path + "/" + $0 } } ?? [path]
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else { continue }
        ExtensionFuzz.run(Array(data))
    }
}
print("rk-fuzz-extension: replayed \(CommandLine.arguments.count - 1) path(s) without a failure")
#endif
