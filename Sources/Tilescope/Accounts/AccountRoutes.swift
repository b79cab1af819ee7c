import Catalog
import HTTPServer

/// Signing in and out: `GET /api/session`, `GET`/`POST /auth/login` (IIIF Auth 2.0's `active` access service),
/// `GET`/`POST /auth/logout` (its logout service). Pages answer HTML; `Accept: application/json` gets JSON.
extension TilescopeApp {
    /// Who the request is signed in as, and the CSRF token its writes must carry; `{"signedIn": false}` for nobody.
    func session(_ request: Request) throws -> Response {
        guard let user = signedInUser(request) else { return JSON.response(SessionJSON(signedIn: false)) }
        var answer = SessionJSON(signedIn: true, user: user.name, role: user.role.rawValue)
        switch user.means {
        case .session(let session):
            answer.csrf = session.csrf
            answer.expires = session.expires
            answer.via = "session"
        case .header, .accessToken:
            answer.csrf = viewers.keyring.current.first.map { CSRFGuard.headerToken(user.name, key: $0) }
            answer.via = "header"
        }
        return JSON.response(answer)
    }

    /// The sign-in page, with a fresh login CSRF secret in a cookie and in the form.
    func loginPage(_ request: Request, status: Int = 200, error: String? = nil) throws -> Response {
        guard accounts.store != nil, !accounts.users.current.users.isEmpty else {
            throw APIError(404, "accounts_off", "this server has no users to sign in (start it with --users FILE)")
        }
        let origin = try request.argument("origin").flatMap { Self.isOrigin($0) ? $0 : nil }
        let secret = SessionCookie.value(SessionCookie.login, in: request.header("cookie"), hexDigits: 32)
            ?? SHA256Digest.randomHex(16)
        var response = AuthPages.response(AuthPages.login(action: plainURL(AuthServices.loginPath, request), csrf: secret,
                                                          origin: origin, error: error),
                                          status: status, nonce: SHA256Digest.randomHex(16))
        response.setHeader("Set-Cookie", SessionCookie.setLogin(secret, secure: viewers.overHTTPS(request)))
        return response
    }

    /// `POST /auth/login`: checks the origin, the client's attempt budget, the form's CSRF secret against the
    /// login cookie, then the name and password; a session on success.
    func signIn(_ request: Request) throws -> Reply {
        try CSRFGuard.checkOrigin(request, ownOrigin: ownOrigin(request))
        if let retryAfter = accounts.attempts.admit(clients.client(of: request)) {
            throw APIError(429, "too_many_requests", "too many sign-in attempts from this client; retry in \(retryAfter) s",
                           headers: [("Retry-After", String(retryAfter))])
        }
        let form = try LoginForm.parse(request.body)
        guard let cookie = SessionCookie.value(SessionCookie.login, in: request.header("cookie"), hexDigits: 32),
              let offered = form["csrf"], CSRFGuard.equal(offered, cookie) else {
            throw CSRFGuard.refused("sign in from this server's sign-in page (/auth/login): the form's csrf must match its cookie")
        }
        guard let name = form["name"], let password = form["password"] else {
            throw APIError.badRequest("a sign-in form has a name and a password")
        }
        let accounts = self.accounts, secure = viewers.overHTTPS(request), json = Self.wantsJSON(request)
        // The password hash costs tens of milliseconds: on a worker, never on a poll thread.
        return later { [self] in
            guard let (secret, session) = try accounts.signIn(name: name, password: password) else {
                if json { throw APIError(401, "unauthorized", "wrong name or password") }
                return try loginPage(request, status: 401, error: "Wrong name or password.")
            }
            let user = accounts.users.user(session.user)
            let nonce = SHA256Digest.randomHex(16)
            var response = json
                ? JSON.response(SessionJSON(signedIn: true, user: session.user, role: user?.role.rawValue, csrf: session.csrf,
                                            expires: session.expires, via: "session"))
                : AuthPages.response(AuthPages.signedIn(session.user, nonce: nonce), nonce: nonce)
            response.setHeader("Set-Cookie", SessionCookie.setSession(secret, maxAge: Accounts.sessionSeconds, secure: secure))
            return response
        }
    }

    /// The sign-out page: a form carrying the session's CSRF token.
    func logoutPage(_ request: Request) throws -> Response {
        let session = accounts.session(of: request)
        let html = AuthPages.logout(action: plainURL(AuthServices.logoutPath, request), user: session?.user, csrf: session?.csrf)
        return AuthPages.response(html, nonce: SHA256Digest.randomHex(16))
    }

    /// `POST /auth/logout`: ends the session (and every access token bound to it) on every replica; needs the
    /// session's CSRF token (form field `csrf` or `X-CSRF-Token`). Without a session it only clears the cookie.
    func signOut(_ request: Request) throws -> Reply {
        let secure = viewers.overHTTPS(request), json = Self.wantsJSON(request)
        if let session = accounts.session(of: request), let user = accounts.users.user(session.user) {
            try CSRFGuard.checkOrigin(request, ownOrigin: ownOrigin(request))
            let form = request.body.isEmpty ? LoginForm(fields: [:]) : try LoginForm.parse(request.body)
            try CSRFGuard.check(request, user: SignedInUser(name: user.name, role: user.role, means: .session(session)),
                                ownOrigin: ownOrigin(request), keys: [], formToken: form["csrf"])
            let accounts = self.accounts
            return later {
                try accounts.signOut(session)
                return Self.signedOut(json: json, secure: secure)
            }
        }
        return .now(Self.signedOut(json: json, secure: secure))
    }

    private static func signedOut(json: Bool, secure: Bool) -> Response {
        var response = json ? JSON.response(SessionJSON(signedIn: false))
            : AuthPages.response(AuthPages.page("Signed out", "<p>You are signed out.</p><p><a href=\"/\">Go to the gallery</a></p>"),
                                 nonce: SHA256Digest.randomHex(16))
        response.setHeader("Set-Cookie", SessionCookie.clearSession(secure: secure))
        return response
    }

    /// An absolute URL of this server for `path`, never under a signed URL's prefix.
    func plainURL(_ path: String, _ request: Request) -> String {
        var plain = request
        plain.mountPath = ""
        return iiif.url(path, request: plain)
    }

    static func wantsJSON(_ request: Request) -> Bool {
        request.header("accept")?.lowercased().contains("application/json") ?? false
    }

    /// Whether `text` is a serialised web origin: `http(s)://host[:port]`, nothing after it.
    static func isOrigin(_ text: String) -> Bool {
        guard text.utf8.count <= 255 else { return false }
        let rest: Substring
        if text.hasPrefix("https://") { rest = text.dropFirst(8) } else if text.hasPrefix("http://") { rest = text.dropFirst(7) } else { return false }
        return !rest.isEmpty && rest.utf8.allSatisfy { byte in
            (48...58).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 46
                || byte == 91 || byte == 93
        }
    }
}

/// `GET /api/session`'s answer (`Session` in the contract).
struct SessionJSON: Encodable {
    var signedIn: Bool
    var user: String?
    var role: String?
    var csrf: String?
    var expires: Int?
    var via: String?
}
