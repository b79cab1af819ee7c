import Catalog
import Foundation
import HTTPServer
import Synchronization

/// Who is signed in: the users file's users with sessions in the catalog (`UserSessions`), a trusted
/// proxy's header naming a user (`--auth-header`), and IIIF access tokens bound to either. Every replica
/// reads the same catalog, so a session survives restarts and works on every replica; signing out deletes
/// its row, which every replica sees within `cacheSeconds` (this one at once).
public final class Accounts: Sendable {
    /// How long a session lasts after signing in.
    static let sessionSeconds = 7 * 24 * 3600
    /// How long a session read from the catalog is trusted before it is read again (per replica).
    static let cacheSeconds = 5
    static let maxCached = 4096

    let users: Users
    let store: UserSessions?
    let keyring: ViewerKeyring
    let clients: TrustedProxies
    /// The header a trusted proxy names the signed-in user in (lowercased), nil: none is read.
    let trustedHeader: String?
    /// Sign-in attempts per client: 10 at once, then 10 a minute (guessing passwords is slow).
    let attempts = RatingWriteLimiter(budget: .init(burst: 10, perSecond: 10.0 / 60.0))
    private let cached = Mutex<[String: (session: UserSession, readAt: Int)]>([:])

    init(users: Users = .none, store: UserSessions? = nil, keyring: ViewerKeyring, clients: TrustedProxies = .none,
         trustedHeader: String? = nil) {
        self.users = users
        self.store = store
        self.keyring = keyring
        self.clients = clients
        self.trustedHeader = trustedHeader.flatMap { $0.isEmpty ? nil : $0.lowercased() }
    }

    /// Whether anyone can sign in here (a users file with users, or a trusted header).
    var isEnabled: Bool { store != nil && !users.current.users.isEmpty || trustedHeader != nil }

    // MARK: - Who is asking

    /// The user a request comes from: the trusted header (from a trusted proxy only), else the session cookie.
    /// The bearer access token is the probe's alone (`probeUser`).
    func user(of request: Request, now: Int = AccessControl.now()) -> SignedInUser? {
        if let name = headerUser(request) {
            return SignedInUser(name: name, role: users.user(name)?.role ?? .viewer, means: .header)
        }
        guard let session = session(of: request, now: now), let user = users.user(session.user) else { return nil }
        return SignedInUser(name: user.name, role: user.role, means: .session(session))
    }

    /// The user a trusted proxy's header names, when the request came from a trusted proxy.
    func headerUser(_ request: Request) -> String? {
        guard let trustedHeader, clients.trusts(request.client), let value = request.header(trustedHeader) else { return nil }
        let name = value.trimmingCharacters(in: .whitespaces)
        return UsersFile.isName(name) ? name : nil
    }

    /// The live session the request's cookie names.
    func session(of request: Request, now: Int = AccessControl.now()) -> UserSession? {
        guard let store, let secret = SessionCookie.value(SessionCookie.session, in: request.header("cookie"), hexDigits: 64) else {
            return nil
        }
        let digest = SHA256Digest.hex(Array(secret.utf8))
        if let hit = cached.withLock({ $0[digest] }), now - hit.readAt < Self.cacheSeconds {
            return hit.session.expires > now ? hit.session : nil
        }
        guard let session = try? store.session(idHash: digest, now: now) else {
            cached.withLock { _ = $0.removeValue(forKey: digest) }
            return nil
        }
        cached.withLock { cache in
            if cache.count >= Self.maxCached { cache.removeAll(keepingCapacity: true) }
            cache[digest] = (session, now)
        }
        return session
    }

    // MARK: - Signing in and out

    /// Checks `name` and `password` against the users file and starts a session: the cookie's secret and the
    /// session. Nil for a wrong name or password (the same answer for both, after the same work).
    func signIn(name: String, password: String, now: Int = AccessControl.now()) throws -> (secret: String, session: UserSession)? {
        guard let store else { return nil }
        let user = UsersFile.isName(name) ? users.user(name) : nil
        // An unknown name still costs a hash check, so timing does not tell which names exist.
        let matches = (user?.hash ?? Self.decoy).matches(password)
        guard let user, matches else { return nil }
        let secret = SHA256Digest.randomHex(32)
        let session = UserSession(idHash: SHA256Digest.hex(Array(secret.utf8)), user: user.name,
                                  csrf: SHA256Digest.randomHex(32), created: now, expires: now + Self.sessionSeconds)
        try store.insert(session, now: now)
        return (secret, session)
    }

    /// Ends the session everywhere (its row goes) and here at once.
    func signOut(_ session: UserSession) throws {
        cached.withLock { _ = $0.removeValue(forKey: session.idHash) }
        try store?.delete(idHash: session.idHash)
    }

    /// A yescrypt hash no password matches (of 32 random bytes), checked for unknown names.
    private static let decoy: PasswordHash = {
        let hash = PasswordHash.yescrypt(SHA256Digest.randomHex(32)) ?? "$y$j9T$decoydecoydecoydecoyde$"
        return PasswordHash(text: hash)
    }()

    // MARK: - IIIF access tokens

    /// A new access token for `user`, and its lifetime: bound to their session, or to the header's name.
    func accessToken(for user: SignedInUser, now: Int = AccessControl.now()) -> (token: String, expiresIn: Int)? {
        guard let key = keyring.current.first else { return nil }
        let subject: AccessToken.Subject
        var expires = now + AccessToken.lifetimeSeconds
        switch user.means {
        case .session(let session):
            subject = .session(session.idHash)
            expires = min(expires, session.expires)
        case .header, .accessToken:
            subject = .header(user.name)
        }
        return (AccessToken(keyID: key.id, expires: expires, subject: subject).text(signedWith: key), expires - now)
    }

    /// The user an `Authorization: Bearer` access token stands for: valid tag, not expired, its session alive.
    func probeUser(_ request: Request, now: Int = AccessControl.now()) -> SignedInUser? {
        guard let header = request.header("authorization"), header.utf8.count <= AccessToken.maxBytes + 16 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
              let token = AccessToken.verified(parts[1].trimmingCharacters(in: .whitespaces)[...], keys: keyring.current),
              now < token.expires else { return nil }
        switch token.subject {
        case .session(let digest):
            guard let session = try? store?.session(idHash: digest, now: now), let user = users.user(session.user) else { return nil }
            return SignedInUser(name: user.name, role: user.role, means: .accessToken)
        case .header(let name):
            return SignedInUser(name: name, role: users.user(name)?.role ?? .viewer, means: .accessToken)
        }
    }
}
