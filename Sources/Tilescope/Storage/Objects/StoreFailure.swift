import ObjectStore

extension APIError {
    /// An object store's failure as an answer, decided by the error's kind, never its text: 503 with `Retry-After`
    /// when the same request later may succeed (the store down, busy or slow), 502 when it refused or answered
    /// what cannot be used (a wrong key, a missing bucket, a broken answer), 500 when the call could not even be
    /// made (settings the store cannot take). The message holds the store's code and request id, no credentials.
    init(store error: S3Error) {
        if error.isRetryable {
            self = APIError(503, "store_unavailable", "the pyramid store does not answer now; retry later (\(error))",
                            headers: [("Retry-After", String(Self.storeRetrySeconds))])
            return
        }
        switch error {
        case .invalidArgument: self = APIError(500, "store_misconfigured", "\(error)")
        case .service, .malformedResponse, .transport: self = APIError(502, "store_failed", "the pyramid store failed: \(error)")
        }
    }

    /// What `Retry-After` says while the store does not answer: a restarted store is usually back within seconds,
    /// and the client's next try costs one failed connect.
    static let storeRetrySeconds = 2
}
