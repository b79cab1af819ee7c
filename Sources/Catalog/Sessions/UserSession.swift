/// A signed-in user's session as the catalog keeps it: who, the CSRF token bound to it, and when it ends.
/// The cookie's secret is not here: the catalog holds only its SHA-256 (`idHash`), so a copy of the catalog
/// signs nobody in.
public struct UserSession: Sendable, Equatable {
    /// SHA-256 of the cookie's secret, 64 lowercase hex digits.
    public let idHash: String
    public let user: String
    /// The CSRF token every state-changing request under this session must send (64 hex digits).
    public let csrf: String
    /// Unix time, seconds.
    public let created: Int
    public let expires: Int

    public init(idHash: String, user: String, csrf: String, created: Int, expires: Int) {
        self.idHash = idHash
        self.user = user
        self.csrf = csrf
        self.created = created
        self.expires = expires
    }
}
