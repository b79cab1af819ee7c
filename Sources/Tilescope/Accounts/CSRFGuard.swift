import Catalog
import CCrypto
import HTTPServer
import ObjectStore

/// Refuses forged cross-site writes. A write a browser authenticates with a cookie (a session, or a trusted
/// proxy's header that the proxy sets from its own cookie) must come from this server's own pages: its
/// `Origin` (or, without one, `Sec-Fetch-Site`) must not name another site, and it must carry the CSRF token
/// bound to the signed-in user (`X-CSRF-Token`, or the form's `csrf` field), which only a page of this
/// origin can read (`GET /api/session`, the login and logout pages). Requests with the admin token
/// (`Authorization: Bearer`) are not cookie-authenticated and need neither.
enum CSRFGuard {
    static let header = "x-csrf-token"

    /// 403 `csrf_refused`, said the same way for every check.
    static func refused(_ message: String) -> APIError {
        APIError(403, "csrf_refused", message)
    }

    /// Refuses a request another site's page sent: an `Origin` other than `ownOrigin` (`null` included), or,
    /// when a browser sent no `Origin`, `Sec-Fetch-Site: cross-site`. Clients that are not browsers send neither.
    static func checkOrigin(_ request: Request, ownOrigin: String) throws {
        if let origin = request.header("origin") {
            guard origin.lowercased() == ownOrigin.lowercased() else {
                throw refused("a cookie-authenticated write must come from this server's own pages (Origin \(ownOrigin))")
            }
        } else if request.header("sec-fetch-site")?.lowercased() == "cross-site" {
            throw refused("a cookie-authenticated write must come from this server's own pages, not another site")
        }
    }

    /// The CSRF token of a user signed in by the trusted header (no session to keep one in): an HMAC of the
    /// name under the newest viewer key, labelled apart from every other MAC made with those keys.
    static func headerToken(_ name: String, key: ViewerKey) -> String {
        Hex.encode(HMACSHA256.mac(key: key.secret, Array("tilescope_csrf/v1/\(name)".utf8)))
    }

    /// Checks a write by `user`: the origin, then the token bound to them (`formToken` from a form body, else
    /// the header). Users signed in by an access token (not a cookie) need none.
    static func check(_ request: Request, user: SignedInUser, ownOrigin: String, keys: [ViewerKey], formToken: String? = nil) throws {
        let offered = formToken ?? request.header(header)
        switch user.means {
        case .accessToken: return
        case .session(let session):
            try checkOrigin(request, ownOrigin: ownOrigin)
            guard let offered, equal(offered, session.csrf) else {
                throw refused("send the session's CSRF token (GET /api/session) in X-CSRF-Token")
            }
        case .header:
            try checkOrigin(request, ownOrigin: ownOrigin)
            guard let offered, keys.contains(where: { equal(offered, headerToken(user.name, key: $0)) }) else {
                throw refused("send the CSRF token (GET /api/session) in X-CSRF-Token")
            }
        }
    }

    /// Constant-time equality of two tokens (CRYPTO_memcmp on equal lengths).
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count, !x.isEmpty else { return false }
        return x.withUnsafeBytes { p in y.withUnsafeBytes { q in CRYPTO_memcmp(p.baseAddress, q.baseAddress, x.count) == 0 } }
    }
}
