import HTTPServer

/// Every URL Tilescope answers, parsed from the decoded path segments.
/// Shape errors (a non-numeric level, say) are thrown here; whether the image, level or
/// tile exists is for the handler, which knows the pyramid.
public enum Endpoint: Equatable, Sendable {
    case imageList
    case image(id: String)
    case viewport(id: String)
    case rating(id: String)
    /// `POST /api/images/{id}/signed-urls`: an admin mints a signed URL for the image (`SignedURLRoutes`).
    case signedURLs(id: String)
    case gallery
    case job(id: String)
    case deepZoomDescriptor(id: String)
    case deepZoomTile(id: String, level: Int, column: Int, row: Int)
    /// A tile in another format than the stored JPEG: `.webp` or `.avif` (`DeepZoomTileFormat`).
    case deepZoomFormatTile(id: String, level: Int, column: Int, row: Int, format: String)
    /// `/dzi/{id}/{version}_files/{level}/{column}_{row}.{jpeg,webp,avif}`: the tiles folder a descriptor
    /// without `?v=` names, in every format a descriptor offers (`format` is the extension).
    case deepZoomVersionedTile(id: String, version: String, level: Int, column: Int, row: Int, format: String)
    case preview(id: String)
    /// `/images/{id}/preview.avif`: the preview in AVIF (`PreviewAVIF`); `preview.png`, a transparent image's
    /// with its alpha (`TransparentAnswers`). `format` is the extension.
    case previewFormat(id: String, format: String)
    /// `/images/{id}/associated/{name}.jpeg`: a slide's associated image (`AssociatedImages`).
    case associatedImage(id: String, name: String)
    /// `/images/{id}/between/{level}/{step}/{column}_{row}.{jpeg,avif}`: a tile of a level between Deep Zoom levels
    /// `level` and `level + 1` (`BetweenLevel`); `step` is the segment as sent (1 or 2 when valid).
    case betweenTile(id: String, level: Int, step: String, column: Int, row: Int, format: String)
    case staticFile(path: [String])
    case health
    case readiness
    case metrics
    case openAPI
    case iiifBase(id: String)
    case iiifInfo(id: String)
    case iiifImage(id: String, region: String, size: String, rotation: String, qualityAndFormat: String)
    case iiif2Base(id: String)
    case iiif2Info(id: String)
    case iiif2Image(id: String, region: String, size: String, rotation: String, qualityAndFormat: String)
    case presentationManifest(id: String)
    case presentationGallery
    case presentationCollection
    /// `GET /api/session`: who the request is signed in as, and the CSRF token its writes carry (`AccountRoutes`).
    case session
    /// `/auth/login`: the login page (GET) and form (POST), IIIF Auth 2.0's `active` access service.
    case login
    /// `/auth/logout`: the sign-out page (GET) and form (POST), IIIF Auth 2.0's logout service.
    case logout
    /// `GET /auth/token`: IIIF Auth 2.0's access token service (an HTML page that posts the token to its opener).
    case accessToken
    /// `GET /auth/external`: IIIF Auth 2.0's `external` access service (a trusted proxy's header signs in).
    case externalAccess
    /// `GET /auth/probe/{id}`: IIIF Auth 2.0's probe service of an image.
    case probe(id: String)
    /// `GET /auth/degraded/{id}.jpeg`: a private image's degraded tier, open to all (`--private-preview-size`).
    case degraded(id: String)

    public var allowedMethods: [String] {
        switch self {
        case .viewport: return ["GET", "HEAD", "POST"]
        case .rating: return ["PUT", "DELETE"]
        case .login, .logout: return ["GET", "HEAD", "POST"]
        case .signedURLs: return ["POST"]
        case .imageList: return ["GET", "HEAD", "POST"]
        case .image: return ["GET", "HEAD", "DELETE"]
        default: return ["GET", "HEAD"]
        }
    }

    /// The endpoint of a path's decoded segments, by the table of shapes (`URLShape.all`): a 400 for a
    /// shape whose values are malformed (a level that is not digits), a 404 naming the right shapes for a
    /// path of a known family that fits none, and a static file for anything else.
    public static func parse(_ segments: [String]) throws -> Endpoint {
        guard let first = segments.first else { return .staticFile(path: segments) }
        for shape in URLShape.starting(with: first) where shape.fits(segments) {
            return shape.make(try shape.values(of: segments))
        }
        if let help = notFoundHelp(segments) { throw APIError.notFound(help) }
        return .staticFile(path: segments)
    }

    /// What a path of a known family that fits none of its shapes is told; nil for a static file's path.
    private static func notFoundHelp(_ segments: [String]) -> String? {
        switch segments.first {
        case "api": return "no API endpoint at /api/\(segments.dropFirst().joined(separator: "/"))"
        case "auth": return "IIIF Authorization Flow 2.0 services are /auth/login, /auth/token, /auth/logout, /auth/external, /auth/probe/{id} and /auth/degraded/{id}.jpeg"
        case "dzi": return "Deep Zoom paths are /dzi/{id}.dzi and /dzi/{id}_files/{level}/{column}_{row}.jpeg"
        case "images": return "an image's previews are /images/{id}/preview.jpeg and /images/{id}/preview.avif, a slide's associated images /images/{id}/associated/{name}.jpeg, the tiles of the levels between Deep Zoom's /images/{id}/between/{level}/{step}/{column}_{row}.{jpeg,avif}"
        case "iiif" where segments.count > 1 && segments[1] == "presentation":
            return "IIIF Presentation resources are /iiif/presentation/collection.json, "
                + "/iiif/presentation/gallery/manifest.json and /iiif/presentation/{id}/manifest.json "
                + "(or /iiif/presentation/image/{id}/manifest.json)"
        case "iiif" where segments.count > 2 && (segments[1] == "3" || segments[1] == "2") && !segments[2].isEmpty:
            return "no IIIF resource here: use /iiif/\(segments[1])/{id}/info.json or "
                + "/iiif/\(segments[1])/{id}/{region}/{size}/{rotation}/{quality}.{format}"
        case "iiif":
            return "IIIF Image API 3.0 lives at /iiif/3/{id}/info.json, 2.1 at /iiif/2/{id}/info.json, "
                + "the Presentation API at /iiif/presentation/{id}/manifest.json"
        default: return nil
        }
    }

    /// Digits only (no sign, no spaces), at most 9 of them so that arithmetic cannot overflow.
    static func naturalNumber<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }
}
