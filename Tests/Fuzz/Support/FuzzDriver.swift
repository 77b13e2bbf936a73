import Foundation

/// What the fuzz targets (Tests/Fuzz/*, scripts/fuzz.sh) share: the plain build's replay of
/// files and the libFuzzer build's hand-over to libFuzzer's driver. Each target keeps only its
/// `LLVMFuzzerTestOneInput` and the two entry points SwiftPM and libFuzzer need by name.
package enum FuzzDriver {
    /// The plain build's `main`: passes each file given as an argument (or each file of a
    /// directory given, in name order) to `run` as one input, on the calling thread, then says
    /// how many paths were replayed. A trap in `run` is a finding and ends the process.
    package static func replay(_ name: String, _ run: ([UInt8]) -> Void) {
        for path in CommandLine.arguments.dropFirst() {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path)).map { $0.sorted().map { path + "/" + $0 } } ?? [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                run(Array(data))
            }
        }
        print("\(name): replayed \(CommandLine.arguments.count - 1) path(s) without a failure")
    }

    #if RK_FUZZ
    /// The libFuzzer build's entry: hands the process's arguments and `input` (the target's
    /// `LLVMFuzzerTestOneInput`) to libFuzzer's own driver and returns its exit status.
    package static func run(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ input: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
        var count = argc
        var vector = argv
        return llvmFuzzerRunDriver(&count, &vector, input)
    }
    #endif
}

#if RK_FUZZ
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32
#endif
