/// Why an S3 call failed, typed so callers decide without reading text: the store's own error code
/// and HTTP status, no answer at all, or an answer that cannot be understood. `isRetryable` says
/// whether the same call later may succeed. Messages never hold credentials or signatures.
public enum S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store answered with an error status: S3's code (`NoSuchKey`, `NoSuchBucket`, `AccessDenied`,
    /// `SignatureDoesNotMatch`, `SlowDown`...; for a bodiless answer such as HEAD's, one made from the
    /// status: `NotFound`, `Forbidden`...), its message and the HTTP status.
    case service(status: Int, code: String, message: String, requestID: String?)
    /// No (whole) answer: refused, timed out, closed mid-answer.
    case transport(HTTPClientError)
    /// An answer that breaks the protocol or the limits: malformed XML or HTTP, missing fields, too large.
    case malformedResponse(String)
    /// Settings that cannot work: an endpoint that is not http://host[:port], a bad bucket name or key.
    case invalidArgument(String)

    /// Codes that mean "busy or briefly unable", whatever their status.
    static let retryableCodes: Set<String> = ["SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable",
                                              "Throttling", "ThrottlingException", "RequestThrottled",
                                              "ConditionalRequestConflict"]

    /// Whether retrying may help: 5xx, 429, throttling (503 SlowDown) and timeouts yes; 403, 404,
    /// 412, malformed answers and bad arguments no.
    public var isRetryable: Bool {
        switch self {
        case .service(let status, let code, _, _):
            return status >= 500 || status == 429 || status == 408 || Self.retryableCodes.contains(code)
        case .transport(let error):
            return error.isRetryable
        case .malformedResponse, .invalidArgument:
            return false
        }
    }

    /// The HTTP status of a `.service` error.
    public var status: Int? {
        if case .service(let status, _, _, _) = self { return status }
        return nil
    }

    /// The S3 code of a `.service` error.
    public var code: String? {
        if case .service(_, let code, _, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .service(let status, let code, let message, let requestID):
            return "S3 \(status) \(code): \(message)" + (requestID.map { " (request \($0))" } ?? "")
        case .transport(let error):
            return "S3 unreachable: \(error)"
        case .malformedResponse(let why):
            return "S3 answer not understood: \(why)"
        case .invalidArgument(let why):
            return "S3 call refused before sending: \(why)"
        }
    }

    /// The error of a non-2xx answer: S3's XML `<Error>` body when there is one, else its status.
    static func from(_ response: HTTPClientResponse) -> S3Error {
        let requestID = response.header("x-amz-request-id")
        if !response.body.isEmpty, let root = try? XMLDocumentParser.parse(response.body), root.name == "Error",
           let code = root.text(of: "Code"), !code.isEmpty {
            return .service(status: response.status, code: String(code.prefix(100)), message: String((root.text(of: "Message") ?? "").prefix(500)),
                            requestID: root.text(of: "RequestId") ?? requestID)
        }
        return .service(status: response.status, code: codeForStatus(response.status), message: "no error body", requestID: requestID)
    }

    static func codeForStatus(_ status: Int) -> String {
        switch status {
        case 301: return "PermanentRedirect"
        case 304: return "NotModified"
        case 400: return "BadRequest"
        case 403: return "Forbidden"
        case 404: return "NotFound"
        case 409: return "Conflict"
        case 412: return "PreconditionFailed"
        case 416: return "InvalidRange"
        case 503: return "ServiceUnavailable"
        default: return "HTTP\(status)"
        }
    }
}
