import ObjectStore

extension APIError {
    /// An images bucket's failure to take an upload or a deletion, decided by the error's kind: 503 with
    /// `Retry-After` when the same request may succeed later (the store down, busy or slow), 502 when the store
    /// refused or answered nonsense (a wrong key, a missing bucket), 500 for a call that cannot be made.
    init(imagesBucket error: S3Error, doing what: String) {
        if error.isRetryable {
            self = APIError(503, "images_bucket_unavailable", "the images bucket does not answer now, so \(what) did not happen; retry later (\(error))",
                            headers: [("Retry-After", String(APIError.storeRetrySeconds))])
            return
        }
        switch error {
        case .invalidArgument: self = APIError(500, "images_bucket_misconfigured", "\(what): \(error)")
        case .service, .malformedResponse, .transport: self = APIError(502, "images_bucket_failed", "\(what) failed in the images bucket: \(error)")
        }
    }
}
