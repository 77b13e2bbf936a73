import XCTest
@testable import RecordKitUploads

/// Target syntax, endpoint resolution, part sizing, object names, rates, redaction.
final class UploadTargetTests: XCTestCase {
    func testParsesEachKind() throws {
        XCTAssertEqual(try UploadTarget.parse("s3://team-recordings/desk-7/"), .s3(bucket: "team-recordings", prefix: "desk-7"))
        XCTAssertEqual(try UploadTarget.parse("s3://bucket"), .s3(bucket: "bucket", prefix: ""))
        XCTAssertEqual(try UploadTarget.parse("tus+http://127.0.0.1:1080/files/"), .tus(endpoint: "http://127.0.0.1:1080/files/"))
        XCTAssertEqual(try UploadTarget.parse("https://h/b/k?X-Amz-Signature=abc"), .presigned(url: "https://h/b/k?X-Amz-Signature=abc"))
    }

    func testMalformedTargetsSayWhatToWriteAndHideSecrets() {
        for bad in ["s3://", "s3://A_B", "ftp://x/y?X-Amz-Signature=SECRETSIG", "tus+http://", "http://?X-Amz-Credential=SECRETSIG", "bucket/prefix"] {
            XCTAssertThrowsError(try UploadTarget.parse(bad), bad) { error in
                let e = error as! UploadError
                XCTAssertEqual(e.kind, .badTarget)
                XCTAssertFalse(e.message.contains("SECRETSIG"), e.message)
                XCTAssertTrue(e.message.contains("write") || e.message.contains("s3://BUCKET"), e.message)
            }
        }
    }

    func testRedactedHidesQueryAndUserInfo() throws {
        let t = try UploadTarget.parse("https://user:pw@h:9/b/k?X-Amz-Signature=SECRET&X-Amz-Credential=AK")
        XCTAssertEqual(t.redacted, "https://…@h:9/b/k?…")
        XCTAssertEqual(try UploadTarget.parse("tus+https://h/files?token=SECRET").redacted, "tus+https://h/files?…")
    }

    func testEndpointResolution() throws {
        let env = ["AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION": "eu-west-1"]
        var r = try S3Options().resolved(environment: env)
        XCTAssertEqual(r.endpoint.port, 9000)
        XCTAssertEqual(r.region, "eu-west-1")
        XCTAssertTrue(r.pathStyle)
        r = try S3Options().resolved(environment: env.merging(["AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9001"]) { $1 })
        XCTAssertEqual(r.endpoint.port, 9001)
        r = try S3Options(endpoint: "http://127.0.0.1:9002", region: "x").resolved(environment: env)
        XCTAssertEqual(r.endpoint.port, 9002)
        XCTAssertEqual(r.region, "x")
        r = try S3Options().resolved(environment: [:])
        XCTAssertEqual(r.endpoint.host, "s3.us-east-1.amazonaws.com")
        XCTAssertFalse(r.pathStyle)
        XCTAssertThrowsError(try S3Options(endpoint: "127.0.0.1:9000").resolved(environment: [:]))
        XCTAssertThrowsError(try S3Options(addressing: "diagonal").resolved(environment: [:]))
    }

    func testPartPlanFitsTenThousandParts() {
        let mib = PartPlan.mib
        XCTAssertEqual(PartPlan(fileSize: 0).count, 1)
        XCTAssertEqual(PartPlan(fileSize: 100 * mib).partSize, 16 * mib)
        XCTAssertEqual(PartPlan(fileSize: 100 * mib).count, 7)
        XCTAssertEqual(PartPlan(fileSize: 100 * mib).range(of: 7), 96 * mib..<100 * mib)
        let huge = PartPlan(fileSize: 1024 * 1024 * mib)  // 1 TiB
        XCTAssertLessThanOrEqual(huge.count, 10_000)
        XCTAssertEqual(huge.partSize % mib, 0)
        XCTAssertEqual(PartPlan(fileSize: 10 * mib, preferred: 1).partSize, 5 * mib)
        let max = PartPlan(fileSize: 10_000 * 16 * mib)
        XCTAssertEqual(max.count, 10_000)
        XCTAssertEqual(PartPlan(fileSize: 10_000 * 16 * mib + 1).count, 9_412)
        XCTAssertEqual(PartPlan(fileSize: 10_000 * 16 * mib + 1).partSize, 17 * mib)
    }

    func testObjectNameTemplate() {
        let date = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24T16:00:00Z
        let t = ObjectNameTemplate(nil)
        XCTAssertEqual(t.key(prefix: "desk-7", host: "lab pc", date: date, recording: "r1", upload: "u1", file: "a b.mp4"),
                       "desk-7/lab_pc/2025-11-24/r1/a_b.mp4")
        XCTAssertEqual(t.key(prefix: "", host: "h", date: date, recording: nil, upload: "u1", file: "x.mp4"), "h/2025-11-24/u1/x.mp4")
        XCTAssertEqual(ObjectNameTemplate("{file}/../{upload}").key(prefix: "", host: "h", date: date, recording: nil, upload: "u1", file: ".."),
                       "_/_/u1")
    }

    func testRateParsing() {
        XCTAssertEqual(RateLimiter.parse("20M"), 20 * 1024 * 1024)
        XCTAssertEqual(RateLimiter.parse("512KB/s"), 512 * 1024)
        XCTAssertEqual(RateLimiter.parse("1000"), 1000)
        XCTAssertNil(RateLimiter.parse("fast"))
        XCTAssertNil(RateLimiter.parse("-1M"))
    }

    func testRetryPolicyBacksOffWithJitterAndHonoursRetryAfter() {
        let p = RetryPolicy()
        for attempt in 1...12 {
            let d = p.delay(after: attempt, retryAfter: nil)
            let exp = min(30, Double(1 << (attempt - 1)))
            XCTAssertTrue(d >= exp * 0.5 && d <= exp, "\(attempt): \(d)")
        }
        XCTAssertEqual(p.delay(after: 1, retryAfter: 20), 20)
    }
}
