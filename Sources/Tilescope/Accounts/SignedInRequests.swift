import Catalog
import HTTPServer

/// What the routes ask about a request's signed-in user: who it is, whether an admin makes a write (with its
/// CSRF proof), and this server's own origin (the one `Origin` a cookie-authenticated write may carry).
extension TilescopeApp {
    /// Who the request is signed in as: a session cookie, or a trusted proxy's header; nil for nobody.
    func signedInUser(_ request: Request) -> SignedInUser? {
        accounts.user(of: request)
    }

    /// Whether a signed-in admin makes this request, its CSRF proof checked (403 `csrf_refused` without it).
    /// False for the admin bearer token (it is checked where it always was) and for everyone else.
    func signedInAdmin(_ request: Request) throws -> Bool {
        if access.adminToken?.accepts(authorization: request.header("authorization")) == true { return false }
        guard let user = signedInUser(request), user.isAdmin else { return false }
        try CSRFGuard.check(request, user: user, ownOrigin: ownOrigin(request), keys: viewers.keyring.current)
        return true
    }

    /// `scheme://host[:port]` as the client reached this server (`--public-url`'s, else the request's headers).
    func ownOrigin(_ request: Request) -> String {
        var plain = request
        plain.mountPath = ""
        let url = iiif.url("/", request: plain)
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        return String(url[..<schemeEnd.upperBound]) + String(rest.prefix { $0 != "/" })
    }

    /// The viewer whose own ratings a request reads: a signed-in user's, else the anonymous cookie's.
    func ratingViewer(_ request: Request) -> ViewerID? {
        signedInUser(request)?.viewer ?? viewers.viewer(of: request)
    }
}
