import ArgumentParser
import Foundation
import RecordKitConfig
import RecordKitControl

/// The options of an upload shared by `upload`, `start --upload` and `save-replay --upload`
/// (docs/UPLOADS.md). No credential is ever an option: the service reads its own.
struct UploadFlags: ParsableArguments {
    @Option(name: .customLong("upload-endpoint"), help: ArgumentHelp("The S3 endpoint URL (default: the config's [uploads] endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS).", valueName: "URL"))
    var endpoint: String?

    @Option(name: .customLong("upload-region"), help: ArgumentHelp("The S3 region (default: AWS_REGION, else us-east-1).", valueName: "REGION"))
    var region: String?

    @Option(name: .customLong("upload-addressing"), help: ArgumentHelp("S3 addressing: path or virtual (default: path for a custom endpoint).", valueName: "MODE"))
    var addressing: String?

    @Option(name: .customLong("upload-profile"), help: ArgumentHelp("The credentials profile of ~/.aws/credentials (default: AWS_PROFILE, else default).", valueName: "NAME"))
    var profile: String?

    @Option(name: .customLong("upload-name"), help: ArgumentHelp("The object name template (default: {host}/{date}/{recording}/{file}).", valueName: "TEMPLATE"))
    var nameTemplate: String?

    @Option(name: .customLong("upload-part-size"), help: ArgumentHelp("S3 part size in MiB, 5 to 5120 (default 16; grown to fit 10,000 parts).", valueName: "MIB"))
    var partSizeMiB: Int?

    @Option(name: .customLong("upload-rate"), help: ArgumentHelp("Limit the service's upload bandwidth, bytes per second with K, M or G (e.g. 20M).", valueName: "RATE"))
    var rate: String?

    @Flag(name: .customLong("delete-after-upload"), help: "Delete the local file once the server's object was checked (size and checksum).")
    var deleteAfterUpload = false

    func validate() throws {
        if let addressing, !["path", "virtual"].contains(addressing) { throw ValidationError("--upload-addressing must be path or virtual, got '\(addressing)'") }
        if let partSizeMiB, !(5...5120).contains(partSizeMiB) { throw ValidationError("--upload-part-size must be 5 to 5120 MiB, got \(partSizeMiB)") }
        if let rate, Self.parseRate(rate) == nil { throw ValidationError("--upload-rate must be bytes per second like 500K or 20M, got '\(rate)'") }
    }

    /// The options for `target`: these flags, else the config file's `[uploads]`; the endpoint
    /// then falls back on this shell's AWS_ENDPOINT_URL_S3/AWS_ENDPOINT_URL (else recordd's).
    func options(target: String, config: UploadSettings = UploadSettings()) -> UploadOptions {
        let env = ProcessInfo.processInfo.environment
        let endpoint = endpoint ?? config.endpoint ?? env["AWS_ENDPOINT_URL_S3"].flatMap { $0.isEmpty ? nil : $0 }
            ?? env["AWS_ENDPOINT_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var o = UploadOptions(target: target, endpoint: target.hasPrefix("s3://") ? endpoint : nil, region: region ?? config.region,
                              addressing: addressing ?? config.addressing, profile: profile ?? config.credentialsProfile,
                              deleteAfterUpload: deleteAfterUpload || config.deleteAfterUpload ? true : nil,
                              nameTemplate: nameTemplate ?? config.name, partSizeMiB: partSizeMiB ?? config.partSizeMiB)
        o.rate = rate
        return o
    }

    /// The target as typed, or read from stdin (`-`) or a file (`@FILE`). A URL with a query
    /// (a presigned URL's signature) on the command line is refused: every user can read argv.
    static func target(_ raw: String) throws -> String {
        var text = raw
        if raw == "-" {
            text = readLine(strippingNewline: true) ?? ""
        } else if raw.hasPrefix("@") {
            guard let contents = try? String(contentsOfFile: String(raw.dropFirst()), encoding: .utf8) else {
                throw ValidationError("cannot read the target from \(raw.dropFirst())")
            }
            text = String(contents.split(whereSeparator: \.isNewline).first ?? "")
        } else if raw.hasPrefix("http"), raw.contains("?") {
            throw ValidationError("a presigned URL on the command line is visible to every user (ps): pass it on standard input "
                                  + "(--to -) or in a private file (--to @FILE)")
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    static func parseRate(_ text: String) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces).uppercased()
        for suffix in ["B/S", "/S", "B"] where t.hasSuffix(suffix) { t.removeLast(suffix.count); break }
        var m = 1.0
        if let last = t.last, let f = ["K": 1024.0, "M": 1048576.0, "G": 1073741824.0][String(last)] { m = f; t.removeLast() }
        guard let v = Double(t), v > 0, v.isFinite else { return nil }
        return v * m
    }
}
