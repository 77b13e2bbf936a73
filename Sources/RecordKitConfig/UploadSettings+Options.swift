import Foundation
import RecordKitControl

extension UploadSettings {
    /// The upload of `target` as these settings describe it, with no flag over them (a hotkey's or
    /// obs-websocket's recording); the endpoint falls back on `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`.
    package func options(target: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> UploadOptions {
        let endpoint = endpoint ?? environment["AWS_ENDPOINT_URL_S3"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["AWS_ENDPOINT_URL"].flatMap { $0.isEmpty ? nil : $0 }
        return UploadOptions(target: target, endpoint: target.hasPrefix("s3://") ? endpoint : nil, region: region, addressing: addressing,
                             profile: credentialsProfile, deleteAfterUpload: deleteAfterUpload ? true : nil, nameTemplate: name,
                             partSizeMiB: partSizeMiB)
    }
}
