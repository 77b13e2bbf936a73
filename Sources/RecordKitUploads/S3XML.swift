import Foundation
import XMLCoder

/// `InitiateMultipartUploadResult`.
struct S3InitiateResult: Decodable {
    var UploadId: String
}

/// `ListPartsResult` (one page).
struct S3ListPartsResult: Decodable {
    struct Part: Decodable {
        var PartNumber: Int
        var ETag: String
        var Size: Int64
    }
    var Part: [Part]?
    var IsTruncated: Bool?
    var NextPartNumberMarker: Int?
}

/// `CompleteMultipartUploadResult`.
struct S3CompleteResult: Decodable {
    var ETag: String?
    var Location: String?
}

/// The request body of `CompleteMultipartUpload`.
struct S3CompleteRequest: Encodable {
    struct Part: Encodable {
        var PartNumber: Int
        var ETag: String
    }
    var Part: [Part]
}

/// S3's `<Error>` body: only `Code` and `Message` are ever shown (the body of a
/// `SignatureDoesNotMatch` also holds the string to sign, which is not).
package struct S3ErrorBody: Decodable {
    package var Code: String?
    package var Message: String?

    /// `": Code: Message"` of an error body, or "" when there is none.
    package static func summary(_ xml: String) -> String {
        guard xml.contains("<Error"), let e = try? XMLDecoder().decode(S3ErrorBody.self, from: Data(xml.utf8)) else { return "" }
        let code = e.Code ?? "error"
        return ": \(code)" + (e.Message.map { " (\(String($0.prefix(160))))" } ?? "")
    }

    /// The error code of a body, if it is an S3 error.
    package static func code(_ xml: String) -> String? {
        guard xml.contains("<Error") else { return nil }
        return (try? XMLDecoder().decode(S3ErrorBody.self, from: Data(xml.utf8)))?.Code
    }
}
