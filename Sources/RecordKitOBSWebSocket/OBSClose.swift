/// The close codes of obs-websocket 5 (`WebSocketCloseCode`).
package enum OBSCloseCode: UInt16, Sendable {
    case unknownReason = 4000
    case messageDecodeError = 4002
    case missingDataField = 4003
    case invalidDataFieldType = 4004
    case invalidDataFieldValue = 4005
    case unknownOpCode = 4006
    case notIdentified = 4007
    case alreadyIdentified = 4008
    case authenticationFailed = 4009
    case unsupportedRpcVersion = 4010
    case sessionInvalidated = 4011
    case unsupportedFeature = 4012
}

/// A reason to close a session: the code and a short reason for the close frame (never a secret).
package struct OBSClose: Error, Sendable, Equatable {
    package var code: OBSCloseCode
    package var reason: String
    package init(_ code: OBSCloseCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
