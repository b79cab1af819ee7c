import HTTPServer

/// `POST /api/images/{id}/signed-urls` (admin token): a signed URL opening the image (and any others the body
/// names) until it expires, with the URLs a viewer is given: the descriptor, IIIF info.json (3.0 and 2.1), the
/// image record and the browser client. Its answer is `no-store`: it carries the credential.
extension TilescopeApp {
    func signedURLs(_ id: String, _ request: Request) throws -> Response {
        if try !signedInAdmin(request) {
            try adminTokenSigns(request)
        }
        return try mint(id, request)
    }

    /// Without an admin's session, the admin token must sign: 403 when none is set, 401 without it.
    private func adminTokenSigns(_ request: Request) throws {
        guard let adminToken = access.adminToken else {
            throw APIError(403, "signing_disabled",
                           "signed URLs are minted with the admin token: start the server with TILESCOPE_ADMIN_TOKEN set")
        }
        guard adminToken.accepts(authorization: request.header("authorization")) else {
            throw APIError(401, "unauthorized", "send 'Authorization: Bearer <token>' with the server's TILESCOPE_ADMIN_TOKEN",
                           headers: [("WWW-Authenticate", "Bearer realm=\"tilescope\"")])
        }
    }

    private func mint(_ id: String, _ request: Request) throws -> Response {
        let asked = try SignedURLRequest.parse(request.body)
        var ids = [id]
        for other in asked.images where !ids.contains(other) { ids.append(other) }
        guard library.record(id) != nil else { throw APIError.notFound("no image with id '\(id.prefix(80))'") }
        // Shape first, of every id before any is looked up: an id no image can have (the contract's ImageID: a-z,
        // 0-9 and _, hyphens only between them) makes the request bad whatever the library holds, even when an
        // earlier id of a good shape names no image (schemathesis sent [unknown, misshapen] and got the 409).
        for each in ids where each != id && !Self.hasImageIDShape(each) {
            throw APIError.badRequest("image '\(each.prefix(80))' is not an image id (a-z, 0-9, - and _ only)")
        }
        for each in ids {
            // The path's image exists: an unknown one in the body conflicts with the library as it is, not a missing resource.
            guard library.record(each) != nil else {
                throw APIError(409, "unknown_image", "the body's images name '\(each.prefix(80))', and no image has that id")
            }
            guard SignedToken.isTokenID(Substring(each)) else {
                throw APIError.badRequest("image '\(each.prefix(80))' has an id a signed URL cannot name (a-z, 0-9, - and _ only)")
            }
        }
        guard let key = access.keyring.current.first else { throw APIError(500, "internal", "no key to sign with") }
        let expires = AccessControl.now() + asked.lifetimeSeconds
        let text = SignedToken(keyID: key.id, expires: expires, ids: ids).text(signedWith: key)
        guard text.utf8.count <= SignedToken.maxBytes else {
            throw APIError.badRequest("these ids make a token longer than \(SignedToken.maxBytes) bytes: sign fewer images at once")
        }
        let base = "/" + AccessControl.signedSegment + "/" + text
        var response = JSON.response(SignedURLAnswer(token: text, expires: expires, images: ids, base: base, id: id, iiif: iiif,
                                                     request: request), status: 201)
        response.setHeader("Cache-Control", "no-store")
        return response
    }

    /// An id's shape as the contract gives it (`^[a-z0-9_]+(-[a-z0-9_]+)*$`), for ids from a body rather than a route.
    static func hasImageIDShape(_ id: String) -> Bool {
        !id.isEmpty && !id.hasPrefix("-") && !id.hasSuffix("-") && !id.contains("--")
            && id.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
    }
}

/// What a signed URL is handed out as. `base` goes before any path the server answers (`{base}/dzi/{id}.dzi`).
struct SignedURLAnswer: Encodable {
    struct URLs: Encodable {
        var image: String
        var dzi: String
        var iiif3: String
        var iiif2: String
        var manifest: String
        var viewer: String
    }

    var token: String
    /// Unix time, seconds.
    var expires: Int
    var images: [String]
    var base: String
    /// The first image's URLs under the signed base (root-relative, the IIIF ones absolute as their ids are).
    var urls: URLs

    init(token: String, expires: Int, images: [String], base: String, id: String, iiif: IIIFService, request: Request) {
        self.token = token
        self.expires = expires
        self.images = images
        self.base = base
        var signed = request
        signed.mountPath = base
        let encoded = PyramidURLs.percentEncoded(id)
        urls = URLs(image: base + "/api/images/" + encoded, dzi: base + "/dzi/" + encoded + ".dzi",
                    iiif3: iiif.url("/iiif/3/\(encoded)/info.json", request: signed),
                    iiif2: iiif.url("/iiif/2/\(encoded)/info.json", request: signed),
                    manifest: iiif.url("/iiif/presentation/\(encoded)/manifest.json", request: signed),
                    viewer: "/?signed=" + token + "#image=" + encoded)
    }
}
