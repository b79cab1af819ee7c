import HTTPServer

/// The bounded set of route names that label metrics and logs: the kind of endpoint,
/// never the raw path, so an id per image cannot blow up the number of series.
extension Endpoint {
    /// A kind of endpoint: its raw value labels metrics and logs. The last is for requests that
    /// matched no endpoint (bad paths, 404s of unknown URLs).
    enum Route: String, CaseIterable {
        case imageList = "image_list"
        case image = "image"
        case viewport = "viewport"
        case rating = "rating"
        case signedURLs = "signed_urls"
        case gallery = "gallery"
        case deepZoomDescriptor = "dzi_descriptor"
        case deepZoomTile = "dzi_tile"
        case betweenTile = "between_tile"
        case preview = "preview"
        case staticFile = "static"
        case health = "healthz"
        case readiness = "readyz"
        case metrics = "metrics"
        case job = "job"
        case iiifBase = "iiif_base"
        case iiifInfo = "iiif_info"
        case iiifImage = "iiif_image"
        case iiif2Base = "iiif2_base"
        case iiif2Info = "iiif2_info"
        case iiif2Image = "iiif2_image"
        case presentationManifest = "iiif_manifest"
        case presentationGallery = "iiif_gallery_manifest"
        case presentationCollection = "iiif_collection"
        case openAPI = "openapi"
        case session = "session"
        case login = "auth_login"
        case logout = "auth_logout"
        case accessToken = "auth_token"
        case externalAccess = "auth_external"
        case probe = "auth_probe"
        case degraded = "auth_degraded"
        case unmatched = "unmatched"

        /// Its place among the metric series.
        var index: Int { Self.indices[self]! }
        private static let indices = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
    }

    /// Every route name, in the order of their metric series.
    static let routeNames = Route.allCases.map(\.rawValue)
    static let unmatchedRoute = Route.unmatched.index

    /// Index into `routeNames`.
    var routeIndex: Int { route.index }

    var route: Route {
        switch self {
        case .imageList: return .imageList
        case .image: return .image
        case .viewport: return .viewport
        case .rating: return .rating
        case .signedURLs: return .signedURLs
        case .gallery: return .gallery
        case .deepZoomDescriptor: return .deepZoomDescriptor
        case .deepZoomTile, .deepZoomFormatTile, .deepZoomVersionedTile: return .deepZoomTile
        // A slide's label and macro are small pictures of it published with the preview: counted with it.
        case .preview, .previewFormat, .associatedImage: return .preview
        case .betweenTile: return .betweenTile
        case .staticFile: return .staticFile
        case .health: return .health
        case .readiness: return .readiness
        case .metrics: return .metrics
        case .job: return .job
        case .iiifBase: return .iiifBase
        case .iiifInfo: return .iiifInfo
        case .iiifImage: return .iiifImage
        case .iiif2Base: return .iiif2Base
        case .iiif2Info: return .iiif2Info
        case .iiif2Image: return .iiif2Image
        case .presentationManifest: return .presentationManifest
        case .presentationGallery: return .presentationGallery
        case .presentationCollection: return .presentationCollection
        case .openAPI: return .openAPI
        case .session: return .session
        case .login: return .login
        case .logout: return .logout
        case .accessToken: return .accessToken
        case .externalAccess: return .externalAccess
        case .probe: return .probe
        case .degraded: return .degraded
        }
    }

    /// The route a request went to, by the shape of its path (`URLShape.all`): what `parse` would return for
    /// a well-formed path, and the same route for a malformed one of that shape (a tile path with a bad level
    /// counts as `dzi_tile` with its 400). Only the shape is matched, no value read: this runs after every
    /// request.
    static func routeIndex(of request: Request) -> Int {
        guard var segments = request.pathSegments else { return unmatchedRoute }
        // A signed URL counts under the route it opens (its token is never a label).
        if segments.count >= 3, segments[0] == AccessControl.signedSegment { segments.removeFirst(2) }
        guard let first = segments.first else { return Route.staticFile.index }
        for shape in URLShape.starting(with: first) where shape.fits(segments) { return shape.route.index }
        return ["api", "dzi", "images", "iiif", "auth"].contains(first) ? unmatchedRoute : Route.staticFile.index
    }
}
