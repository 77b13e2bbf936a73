import XCTest
@testable import RecordKitUploads

/// SigV4 against AWS's published examples: the signature test suite's `get-vanilla` and
/// `get-vanilla-query-order-key-case`, and the S3 documentation's GetObject example.
final class SigV4SignerTests: XCTestCase {
    let suite = SigV4Signer(credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
                            region: "us-east-1", service: "service")

    func testGetVanilla() {
        let auth = suite.authorization(method: "GET", canonicalURI: "/", query: [],
                                       headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                                       payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20150830T123600Z")
        XCTAssertEqual(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, "
                       + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    func testGetVanillaQueryOrderKeyCase() {
        let auth = suite.authorization(method: "GET", canonicalURI: "/", query: [("Param2", "value2"), ("Param1", "value1")],
                                       headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                                       payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20150830T123600Z")
        XCTAssertTrue(auth.hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"), auth)
    }

    func testS3GetObjectExample() {
        let s3 = SigV4Signer(credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                             region: "us-east-1")
        let headers = [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                       ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash), ("x-amz-date", "20130524T000000Z")]
        let (canonical, signed) = SigV4Signer.canonicalRequest(method: "GET", canonicalURI: "/test.txt", query: [], headers: headers,
                                                               payloadHash: SigV4Signer.emptyPayloadHash)
        XCTAssertEqual(signed, "host;range;x-amz-content-sha256;x-amz-date")
        XCTAssertTrue(canonical.hasPrefix("GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"))
        let auth = s3.authorization(method: "GET", canonicalURI: "/test.txt", query: [], headers: headers,
                                    payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20130524T000000Z")
        XCTAssertEqual(auth, "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                       + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    func testURIEncoding() {
        XCTAssertEqual(SigV4Signer.uriEncode("a b/c~d+e", keepSlash: true), "a%20b/c~d%2Be")
        XCTAssertEqual(SigV4Signer.uriEncode("a/b"), "a%2Fb")
        XCTAssertEqual(SigV4Signer.uriEncode("é"), "%C3%A9")
    }

    func testCredentialsNeverPrinted() {
        let c = S3Credentials(accessKeyID: "AKID", secretAccessKey: "VERYSECRET", sessionToken: "TOKEN")
        XCTAssertFalse("\(c)".contains("VERYSECRET"))
        XCTAssertFalse(String(reflecting: c).contains("VERYSECRET") && "\(c)".contains("TOKEN"))
    }
}
