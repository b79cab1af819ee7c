import Catalog
import Foundation
import HTTPServer
import ObjectStore

/// A request that cannot be answered as asked: its status, a short machine-readable
/// code and a message for people. Thrown anywhere, turned into a response in one place.
public struct APIError: Error, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var headers: [(name: String, value: String)]
    /// A private image's IIIF Authorization Flow 2.0 probe service, listed in its 401s so a client learns how to sign in.
    var service: [AuthProbeService]?

    public init(_ status: Int, _ code: String, _ message: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The one place where what went wrong below the routes becomes an HTTP status: domain errors
    /// map to the status that says whose fault it is; anything unforeseen is a 500.
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as LibraryError:
            switch error {
            case .noSuchImage: self = .notFound(error.description)
            case .cannotRemove: self = APIError(500, "delete_failed", error.description)
            }
        case let error as RatingError: self = .badRequest(error.description)
        case let error as UploadError: self = error.apiError
        case let error as DatabaseUnavailable:
            self = APIError(503, "database_unavailable", error.description,
                            headers: [("Retry-After", String(min(error.retryAfterSeconds, 60)))])
        case let error as S3Error: self = APIError(store: error)
        default: self = APIError(500, "internal", "\(error)")
        }
    }

    /// The JSON of every error: `Error` in the contract.
    private struct Body: Encodable {
        var error: String
        var message: String
        var service: [AuthProbeService]?
    }

    public static func notFound(_ message: String) -> APIError { APIError(404, "not_found", message) }
    public static func badRequest(_ message: String) -> APIError { APIError(400, "bad_request", message) }

    public static func methodNotAllowed(_ method: String, allowed: [String]) -> APIError {
        APIError(405, "method_not_allowed", "\(method) is not allowed here; use \(allowed.joined(separator: ", "))",
                 headers: [("Allow", allowed.joined(separator: ", "))])
    }

    /// The image exists but its pyramid is not ready; `retryAfter` is the build's estimate.
    public static func building(_ id: String, percent: Int, retryAfter: Int) -> APIError {
        APIError(503, "building", "image \(id) is still being built (\(percent)%); retry later",
                 headers: [("Retry-After", String(max(1, min(retryAfter, 60))))])
    }

    public var response: Response {
        var response = JSON.response(Body(error: code, message: message, service: service), status: status)
        for (name, value) in headers { response.setHeader(name, value) }
        return response
    }
}
