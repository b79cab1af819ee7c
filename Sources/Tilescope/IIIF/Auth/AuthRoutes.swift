import Catalog
import HTTPServer

/// IIIF Authorization Flow 2.0's services (https://iiif.io/api/auth/2.0/): the probe of an image, the access
/// token service (an HTML page in the client's iframe that posts the token to it), the `external` access
/// service's page, and a private image's degraded tier. The `active` access service and the logout service
/// are the login and logout pages (`AccountRoutes`).
extension TilescopeApp {
    /// The probe service of `record` when it is private and this server offers a way in (users, a trusted
    /// header, or a degraded tier); nil otherwise. Its URLs never carry a signed URL's prefix.
    func authProbe(for record: ImageRecord, _ request: Request) -> AuthProbeService? {
        guard accounts.isEnabled || degradedSize > 0, access.isPrivate(fileName: record.fileName) else { return nil }
        return AuthServices.probe(id: record.id, external: accounts.trustedHeader != nil) { plainURL($0, request) }
    }

    /// `GET /auth/probe/{id}`: AuthProbeResult2, always HTTP 200 (the result's `status` is what the image's
    /// routes would answer): 200 for a public image or a request with a credential for it (an access token
    /// from the token service, a session cookie, the trusted header, the admin token); else 401, with the
    /// degraded tier in `substitute` when one is configured: the spec's tiered access (a `location` comes only
    /// with a 30x and is drawn instead, which would end a conforming client's flow before it offers to sign in).
    func probe(_ id: String, _ request: Request) throws -> Response {
        let record = try record(id)
        var result = ProbeResult(status: 200)
        if access.isPrivate(fileName: record.fileName), accounts.probeUser(request) == nil,
           (try? access.admit(id: id, fileName: record.fileName, request, token: nil)) == nil {
            result.heading = Presentation.english("This image is private")
            if degradedSize > 0, case .ready(let manifest) = record.status {
                let size = Self.degradedFit(width: manifest.pyramid.width, height: manifest.pyramid.height, longest: degradedSize)
                result.status = 401
                result.substitute = [.init(id: plainURL(AuthServices.degradedPrefix + IIIFService.encode(id) + ".jpeg", request),
                                           width: size.width, height: size.height)]
                result.note = Presentation.english("A small version is shown; sign in to see the whole image.")
            } else {
                result.status = 401
                result.note = Presentation.english("Sign in to see it.")
            }
        }
        var response = JSON.response(result)
        response.setHeader("Vary", "Authorization, Cookie")
        return response
    }

    /// `GET /auth/token?messageId=...&origin=...`: an HTML page that posts AuthAccessToken2 (bound to the session,
    /// or to the trusted header's user, for `AccessToken.lifetimeSeconds`) or AuthAccessTokenError2 to the
    /// parent window at `origin`. Without a usable `messageId` or `origin` nothing can be posted: a 400 page.
    func accessTokenPage(_ request: Request) throws -> Response {
        let nonce = SHA256Digest.randomHex(16)
        guard let messageID = try request.argument("messageId"), !messageID.isEmpty, messageID.utf8.count <= 256,
              let origin = try request.argument("origin"), Self.isOrigin(origin) else {
            return AuthPages.response(AuthPages.page("Access token", "<p>The token service needs a messageId (1 to 256 characters) and the origin of the page that asks (scheme://host[:port]).</p>"),
                                      status: 400, nonce: nonce, framable: true)
        }
        let message: String
        if let user = signedInUser(request), let (token, expiresIn) = accounts.accessToken(for: user) {
            message = String(decoding: JSON.encode(AccessTokenMessage(messageId: messageID, accessToken: token, expiresIn: expiresIn)),
                             as: UTF8.self)
        } else {
            message = String(decoding: JSON.encode(tokenError(request, messageID: messageID)), as: UTF8.self)
        }
        return AuthPages.response(AuthPages.token(message: message, origin: origin, nonce: nonce), nonce: nonce, framable: true)
    }

    /// Why no token: nobody can sign in here (`unavailable`), no session cookie (`missingAspect`), or a cookie
    /// whose session is gone (signed out, ended: `invalidAspect`).
    private func tokenError(_ request: Request, messageID: String) -> AccessTokenError {
        guard accounts.isEnabled else {
            return AccessTokenError(profile: "unavailable", messageId: messageID, heading: Presentation.english("Signing in is off"))
        }
        if SessionCookie.value(SessionCookie.session, in: request.header("cookie"), hexDigits: 64) != nil {
            return AccessTokenError(profile: "invalidAspect", messageId: messageID,
                                    heading: Presentation.english("Your session has ended"), note: Presentation.english("Sign in again."))
        }
        return AccessTokenError(profile: "missingAspect", messageId: messageID,
                                heading: Presentation.english("Not signed in"), note: Presentation.english("Sign in to see this image."))
    }

    /// `GET /auth/external`: the `external` access service is never opened by a client (the proxy in front signs
    /// people in); a person who opens it learns whether the proxy did.
    func externalAccessPage(_ request: Request) throws -> Response {
        guard accounts.trustedHeader != nil else {
            throw APIError(404, "accounts_off", "no trusted header signs anyone in here (--auth-header)")
        }
        let text = accounts.headerUser(request).map { "<p>Your organisation signed you in as <strong>\(AuthPages.escaped($0))</strong>.</p>" }
            ?? "<p>Your organisation's sign-in did not name you: sign in through it, then reload.</p>"
        return AuthPages.response(AuthPages.page("Signed in through your organisation", text), nonce: SHA256Digest.randomHex(16))
    }

    /// `GET /auth/degraded/{id}.jpeg`: a private image at most `--private-preview-size` pixels on its longest
    /// side, to anyone (what the probe's `location` names). 404 when no tier is configured, for a public image
    /// (its own URLs are open) and for an unknown one.
    func degraded(_ id: String, _ request: Request) throws -> Reply {
        guard degradedSize > 0 else { throw APIError(404, "not_found", "no degraded tier is configured (--private-preview-size)") }
        let (record, manifest) = try readyImage(id)
        guard access.isPrivate(fileName: record.fileName) else {
            throw APIError.notFound("image \(id) is public: it has no degraded tier")
        }
        let size = Self.degradedFit(width: manifest.pyramid.width, height: manifest.pyramid.height, longest: degradedSize)
        let rendering = try IIIFImageRequest.parse(region: "full", size: "\(size.width),\(size.height)", rotation: "0",
                                                   qualityAndFormat: "default.jpg")
            .resolve(width: manifest.pyramid.width, height: manifest.pyramid.height, maxArea: iiif.maxArea)
        var plain = request
        plain.mountPath = ""
        plain.query = QueryArguments()
        let reply = try serve(rendering, of: record, manifest, base: plainURL(AuthServices.degradedPrefix, request),
                              profileURI: IIIFInfo.profileURI, plain)
        // Never kept for answering a IIIF URL, never linking one, cached an hour (it follows the image's version).
        return Self.mapped(reply) { response in
            response.reuse = nil
            response.headers.removeAll { $0.name == "Link" }
            if response.status == 200 || response.status == 304 { response.setHeader("Cache-Control", "public, max-age=3600") }
        }
    }

    /// The size of the degraded tier: the image scaled to fit `longest` on its longest side, never enlarged.
    static func degradedFit(width: Int, height: Int, longest: Int) -> (width: Int, height: Int) {
        let side = max(width, height)
        guard side > longest else { return (width, height) }
        return (max(1, (width * longest + side / 2) / side), max(1, (height * longest + side / 2) / side))
    }

    /// `reply` with `change` applied to its response, whenever it is made.
    static func mapped(_ reply: Reply, _ change: @escaping @Sendable (inout Response) -> Void) -> Reply {
        switch reply {
        case .now(var response):
            change(&response)
            return .now(response)
        case .later(let work):
            return .later {
                var response = work()
                change(&response)
                return response
            }
        case .costly(var work):
            let make = work.make
            work.make = {
                var response = make()
                change(&response)
                return response
            }
            return .costly(work)
        }
    }
}

/// AuthProbeResult2.
struct ProbeResult: Encodable {
    struct Substitute: Encodable {
        var id: String
        var type = "Image"
        var format = "image/jpeg"
        var width: Int
        var height: Int
    }

    var context = AuthServices.contextURI
    var type = "AuthProbeResult2"
    var status: Int
    var substitute: [Substitute]?
    var heading: Presentation.LanguageMap?
    var note: Presentation.LanguageMap?

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case type, status, substitute, heading, note
    }
}

/// AuthAccessToken2, posted to the client.
struct AccessTokenMessage: Encodable {
    var context = AuthServices.contextURI
    var type = "AuthAccessToken2"
    var messageId: String
    var accessToken: String
    var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case type, messageId, accessToken, expiresIn
    }
}

/// AuthAccessTokenError2, posted to the client.
struct AccessTokenError: Encodable {
    var context = AuthServices.contextURI
    var type = "AuthAccessTokenError2"
    var profile: String
    var messageId: String
    var heading: Presentation.LanguageMap?
    var note: Presentation.LanguageMap?

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case type, profile, messageId, heading, note
    }
}
