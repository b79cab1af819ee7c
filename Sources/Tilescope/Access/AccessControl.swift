import Catalog
import Foundation
import HTTPServer
import Synchronization

/// Who may see which image's pixels. Public images are open to all. A private image (`PrivateImages`) is
/// open only to a request with the admin token, or one under `/signed/{token}/` whose valid, unexpired token
/// names it; everyone else gets 401 with a JSON reason, before any route reads a file, a cache or the
/// image's metadata, so no answer (tile, descriptor, preview, IIIF, viewport, manifest, record, error
/// message) carries anything of it. Lists (the image list, the gallery, the IIIF collection and gallery
/// manifest) show public images only, to everyone (`Gallery`).
final class AccessControl: Sendable {
    /// The first path segment of a signed URL: `/signed/{token}/...`.
    static let signedSegment = "signed"

    let privateImages: PrivateImages
    let captions: CaptionsCache?
    let keyring: ViewerKeyring
    let adminToken: AdminToken?
    /// Signed-in users (sessions, a trusted proxy's header): every one of them sees every private image.
    let accounts: Accounts?
    /// Tokens already verified, by their whole text (the tag included, so a forged one is never found here):
    /// a viewer sends the same token with every tile, and its HMAC is then computed once, not per request.
    /// Bounded (emptied when full) and emptied when a key is retired (`forgetVerified`).
    private let verified = Mutex<[String: SignedToken]>([:])
    static let maxVerified = 4096

    init(privateImages: PrivateImages = .none, captions: CaptionsCache? = nil, keyring: ViewerKeyring, adminToken: AdminToken?,
         accounts: Accounts? = nil) {
        self.accounts = accounts
        self.privateImages = privateImages
        self.captions = captions
        self.keyring = keyring
        self.adminToken = adminToken
    }

    /// Whether the file `fileName` is private now (the sidecar as last read).
    func isPrivate(fileName: String) -> Bool {
        privateImages.isPrivate(fileName: fileName, captions: captions?.current ?? Captions())
    }

    /// For a path under `/signed/{token}/`: the request as the routes see it (the prefix taken off the path and
    /// kept as its `mountPath`) and the token. 401 for a token that is malformed, forged, signed by a key no
    /// longer in the catalog, or expired, whatever the rest of the path asks: a bad credential opens nothing.
    func mounted(_ request: Request, segments: [String], now: Int = AccessControl.now()) throws -> (Request, [String], SignedToken) {
        // The token is read from the path as sent (it has nothing to escape), so the prefix kept for the URLs
        // written back, and for the hot table's key, is exactly what the client sent.
        let parts = request.rawPath.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard segments.count >= 3, parts.count == 4, parts[1] == Self.signedSegment, parts[2] == segments[1] else {
            throw Self.refused("a signed URL is /signed/{token}/ followed by the path it opens (its token unescaped)")
        }
        let text = parts[2]
        guard let token = verifiedToken(text) else { throw Self.refused("the signed URL's token is not valid") }
        guard now < token.expires else { throw Self.refused("the signed URL has expired") }
        var inner = request
        inner.mountPath = "/" + Self.signedSegment + "/" + String(text)
        inner.rawPath = String(request.rawPath.dropFirst(inner.mountPath.count))
        inner.pathSegments = Array(segments.dropFirst(2))
        return (inner, Array(segments.dropFirst(2)), token)
    }

    /// The token `text` spells if it verifies, from the tokens verified before when it is one of them. The
    /// keyring is read on every call, so a retirement noticed there empties the cache first.
    private func verifiedToken(_ text: Substring) -> SignedToken? {
        let keys = keyring.current
        let key = String(text)
        if let known = verified.withLock({ $0[key] }) { return known }
        guard let token = SignedToken.verified(text, keys: keys) else { return nil }
        verified.withLock { cache in
            if cache.count >= Self.maxVerified { cache.removeAll(keepingCapacity: true) }
            cache[key] = token
        }
        return token
    }

    /// Forgets every verified token (a key was retired: the tokens it signed must be checked again, and fail).
    func forgetVerified() {
        verified.withLock { $0.removeAll() }
    }

    /// How the request may see the image `fileName` with id `id`: 401 for a private one without a credential
    /// that opens it. `token` is the signed URL's, if the request came under one.
    func admit(id: String, fileName: String, _ request: Request, token: SignedToken?, now: Int = AccessControl.now()) throws -> Admission {
        if let token {
            guard !isPrivate(fileName: fileName) || token.opens(id, at: now) else {
                throw Self.refused("this signed URL does not open this image")
            }
            return .signed(token, mount: request.mountPath)
        }
        guard isPrivate(fileName: fileName) else { return .open }
        if let adminToken, adminToken.accepts(authorization: request.header("authorization")) { return .admin }
        if accounts?.user(of: request, now: now) != nil { return .user }
        throw Self.refused("this image is private: sign in, or open it with a signed URL (/signed/{token}/...) or the admin token")
    }

    /// What a response may be cached as, given how its image was opened: under a signed URL, kept in the hot
    /// table under the whole target (the token in it) only until the token expires, and an answer that was
    /// immutable is cacheable by anyone until then (`Expires`, no `max-age`: a kept answer repeats its headers,
    /// and an absolute date stays right however late it is repeated); opened by the admin token, cached by
    /// that browser only (`private, no-cache`) and never kept.
    static func adjust(_ response: inout Response, for admission: Admission) {
        switch admission {
        case .open: return
        case .admin, .user:
            response.reuse = nil
            if let control = response.header("Cache-Control"), control != "no-store" {
                response.setHeader("Cache-Control", "private, no-cache")
            }
        case let .signed(token, mount):
            if var key = response.reuse {
                key.target = mount + key.target
                key.expires = token.expires
                response.reuse = key
            }
            guard let control = response.header("Cache-Control") else { return }
            if control == HTTPCaching.immutable {
                response.setHeader("Cache-Control", "public, immutable")
                response.setHeader("Expires", token.expiresHTTPDate)
            } else if let maxAge = Self.maxAge(control) {
                // Any other lifetime (info.json's hour) is cut to what the token has left: no cache answers
                // a signed URL after it expired.
                let left = max(0, token.expires - now())
                if maxAge > left { response.setHeader("Cache-Control", "public, max-age=\(left)") }
            }
        }
    }

    /// The `max-age` of a Cache-Control value, when it has one.
    static func maxAge(_ control: String) -> Int? {
        guard let range = control.range(of: "max-age=") else { return nil }
        return Int(control[range.upperBound...].prefix { $0.isNumber }.prefix(10))
    }

    /// The 401 every refusal is: a JSON reason that names no image.
    static func refused(_ message: String) -> APIError {
        APIError(401, "unauthorized", message, headers: [("WWW-Authenticate", "Bearer realm=\"tilescope\"")])
    }

    /// Unix time, seconds.
    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// RFC 9110's IMF-fixdate of Unix time `seconds`.
    static func httpDate(_ seconds: Int) -> String {
        var time = time_t(seconds), parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Endpoint {
    /// The image an endpoint answers about, whose access is checked before it is routed; nil for the lists,
    /// the operations endpoints and static files.
    var imageID: String? {
        switch self {
        case .image(let id), .viewport(let id), .rating(let id), .job(let id), .signedURLs(let id),
             .deepZoomDescriptor(let id), .preview(let id), .iiifBase(let id), .iiifInfo(let id), .iiif2Base(let id),
             .iiif2Info(let id), .presentationManifest(let id):
            return id
        case let .deepZoomTile(id, _, _, _), let .deepZoomFormatTile(id, _, _, _, _), let .deepZoomVersionedTile(id, _, _, _, _, _),
             let .previewFormat(id, _), let .associatedImage(id, _), let .iiifImage(id, _, _, _, _), let .iiif2Image(id, _, _, _, _),
             let .betweenTile(id, _, _, _, _, _):
            return id
        case .imageList, .gallery, .staticFile, .health, .readiness, .metrics, .openAPI, .presentationGallery, .presentationCollection:
            return nil
        // The probe answers for a private image to anyone (its answer says 401), and the degraded tier is open
        // to all by design: both check the image themselves.
        case .session, .login, .logout, .accessToken, .externalAccess, .probe, .degraded:
            return nil
        }
    }
}
