import Catalog

/// A user a request comes from: by a session cookie (`session` set), by the trusted header a proxy in
/// front sets (`--auth-header`), or by a IIIF access token (the probe's `Authorization: Bearer`).
struct SignedInUser: Sendable, Equatable {
    enum Means: Sendable, Equatable {
        case session(UserSession)
        case header
        case accessToken
    }

    let name: String
    let role: UserRole
    let means: Means

    var isAdmin: Bool { role == .admin }

    /// The session, when the request came with its cookie: then writes need its CSRF token.
    var session: UserSession? {
        if case .session(let session) = means { return session }
        return nil
    }

    /// The viewer a signed-in user's ratings are kept under: derived from the name, so a user's ratings are
    /// theirs from any browser, never an anonymous cookie's. Labelled, so no cookie's id can equal it by design.
    var viewer: ViewerID {
        let digest = SHA256Digest.hex(Array("tilescope_user/v1/\(name)".utf8))
        return ViewerID(hex: String(digest.prefix(32)))!
    }
}
