/// The request status codes of obs-websocket 5 (`RequestStatus`) that RecordKit answers with.
package enum OBSRequestStatus: Int64, Sendable {
    case success = 100
    case missingRequestType = 203
    case unknownRequestType = 204
    case genericError = 205
    case unsupportedRequestBatchExecutionType = 206
    case notReady = 207
    case missingRequestField = 300
    case missingRequestData = 301
    case invalidRequestField = 400
    case invalidRequestFieldType = 401
    case requestFieldOutOfRange = 402
    case requestFieldEmpty = 403
    case outputRunning = 500
    case outputNotRunning = 501
    case outputPaused = 502
    case outputNotPaused = 503
    case outputDisabled = 504
    case resourceNotFound = 600
    case invalidResourceState = 604
    case resourceActionFailed = 701
    case requestProcessingFailed = 702
    case cannotAct = 703
}

/// What a request produced: its status, a comment on failure, and the response data.
package struct OBSRequestResult: Sendable, Equatable {
    package var status: OBSRequestStatus
    package var comment: String?
    package var data: OBSValue?

    /// Success with `data`.
    package static func success(_ data: OBSValue? = nil) -> OBSRequestResult { OBSRequestResult(status: .success, comment: nil, data: data) }
    /// Failure with `status` and `comment`.
    package static func failure(_ status: OBSRequestStatus, _ comment: String) -> OBSRequestResult {
        OBSRequestResult(status: status, comment: comment, data: nil)
    }
}

/// Answers requests by type; called for each request of a session in order (batches included).
package protocol OBSRequestHandling: Sendable {
    /// Answers one request (`requestData` as sent, nil when absent). May block (it drives the
    /// recording service); never called on a WebSocket event loop.
    func handle(requestType: String, requestData: OBSValue?) -> OBSRequestResult
}
