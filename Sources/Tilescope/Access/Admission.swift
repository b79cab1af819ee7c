/// How a request came to see an image: it is public, the admin token opened it, a signed-in user, or a signed URL.
/// What the answer may then be cached as follows from it (`AccessControl.adjust`).
enum Admission: Sendable, Equatable {
    /// A public image asked for without a signed URL: answered and cached as ever.
    case open
    /// A private image opened by `Authorization: Bearer` with the admin token: cached by that browser only,
    /// and never kept for answering again without routing (the token is a header the hot table does not read).
    case admin
    /// A private image opened by a signed-in user (a session cookie, or a trusted proxy's header): cached by
    /// that browser only and never kept, as for the admin token (the hot table reads neither).
    case user
    /// Any image under `/signed/{token}/` (`mount` is that prefix as sent): cacheable by anyone until the
    /// token expires, since the URL itself is the credential.
    case signed(SignedToken, mount: String)
}
