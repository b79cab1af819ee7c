import Catalog
import HTTPServer

/// Who is asking, for ratings: the viewer a request's signed cookie names, who may write (`RatingPolicy`),
/// and each client's write budget. Reading needs no cookie; writing without a valid one makes a new viewer.
public final class Viewers: Sendable {
    let policy: RatingPolicy
    let keyring: ViewerKeyring
    let writes: RatingWriteLimiter
    let adminToken: AdminToken?
    /// Whose budget a write spends, and whether the request came over HTTPS (a trusted proxy's word).
    let clients: TrustedProxies

    init(policy: RatingPolicy = .anyone, keyring: ViewerKeyring = ViewerKeyring(keys: [.random(id: 1)]),
         writes: RatingWriteLimiter = RatingWriteLimiter(), adminToken: AdminToken? = nil, clients: TrustedProxies = .none) {
        self.policy = policy
        self.keyring = keyring
        self.writes = writes
        self.adminToken = adminToken
        self.clients = clients
    }

    /// The viewer the request's `tilescope_viewer` cookie names, if its tag is valid under any key.
    func viewer(of request: Request) -> ViewerID? {
        guard let cookie = request.header("cookie") else { return nil }
        return ViewerCookie.viewer(cookieHeader: cookie, keys: keyring.current)
    }

    /// Whether `request` may write ratings at all (`--ratings`): throws 403 when ratings are off, 401 when only
    /// signed-in users (or admins) rate and the request is neither. `user` is who the request is signed in as.
    func authorize(_ request: Request, user: SignedInUser?) throws {
        let admin = adminToken?.accepts(authorization: request.header("authorization")) ?? false
        switch policy {
        case .anyone: break
        case .off: throw APIError(403, "ratings_off", "this server does not take ratings (--ratings off)")
        case .signedIn:
            guard admin || user != nil else {
                throw APIError(401, "unauthorized", "only signed-in users rate here (--ratings signed-in): sign in at /auth/login",
                               headers: [("WWW-Authenticate", "Bearer realm=\"tilescope\"")])
            }
        case .admins:
            guard admin || user?.isAdmin == true else {
                throw APIError(401, "unauthorized", "only admins rate here (--ratings admins): send 'Authorization: Bearer <token>' or sign in as an admin",
                               headers: [("WWW-Authenticate", "Bearer")])
            }
        }
    }

    /// Spends one write of the client's budget (429 with Retry-After when it is spent), then the writer: the
    /// cookie's viewer, or a new one with the Set-Cookie that issues it. After `authorize`.
    /// A signed-in user's ratings are theirs (`SignedInUser.viewer`), whatever anonymous cookie the browser has.
    func writer(of request: Request, user: SignedInUser?) throws -> (viewer: ViewerID, setCookie: String?) {
        try spend(request)
        if let user { return (user.viewer, nil) }
        let keys = keyring.current
        if let viewer = ViewerCookie.viewer(cookieHeader: request.header("cookie"), keys: keys) { return (viewer, nil) }
        guard let newest = keys.first else { throw APIError(500, "internal", "no viewer key to sign a cookie with") }
        let viewer = ViewerID.random()
        return (viewer, ViewerCookie.setCookie(viewer, key: newest, secure: overHTTPS(request)))
    }

    /// Spends one write of the client's budget: 429 with Retry-After when it is spent.
    func spend(_ request: Request) throws {
        if let retryAfter = writes.admit(clients.client(of: request)) {
            let budget = writes.budget
            throw APIError(429, "too_many_requests",
                           "too many rating writes from this client: \(Int(budget.burst)) at once, then \(Int(budget.perSecond * 60)) a minute; retry in \(retryAfter) s",
                           headers: [("Retry-After", String(retryAfter))])
        }
    }

    /// Whether the client reached us over HTTPS: only a trusted proxy's `X-Forwarded-Proto` can say so
    /// (this server itself speaks plain HTTP).
    func overHTTPS(_ request: Request) -> Bool {
        guard clients.trusts(request.client), let proto = request.header("x-forwarded-proto") else { return false }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }
}
