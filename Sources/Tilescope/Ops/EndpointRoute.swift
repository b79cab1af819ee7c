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
        case gallery = "gallery"
        case deepZoomDescriptor = "dzi_descriptor"
        case deepZoomTile = "dzi_tile"
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
        case .gallery: return .gallery
        case .deepZoomDescriptor: return .deepZoomDescriptor
        case .deepZoomTile, .deepZoomFormatTile, .deepZoomVersionedTile: return .deepZoomTile
        case .preview, .previewAVIF: return .preview
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
        }
    }

    /// The route a request went to, by the shape of its path: what `parse` would return for a
    /// well-formed path, and the same route for a malformed one of that shape (a tile path with
    /// a bad level counts as `dzi_tile` with its 400). A cheap classifier rather than `parse`,
    /// which costs ~1 us: this runs after every request. OpsEndpointTests checks both agree.
    static func routeIndex(of request: Request) -> Int {
        guard let segments = request.pathSegments else { return unmatchedRoute }
        guard let first = segments.first else { return Route.staticFile.index }
        switch (first, segments.count) {
        case ("api", 2) where segments[1] == "images": return Route.imageList.index
        case ("api", 2) where segments[1] == "gallery": return Route.gallery.index
        case ("api", 3) where segments[1] == "images": return Route.image.index
        case ("api", 3) where segments[1] == "jobs": return Route.job.index
        case ("api", 4) where segments[1] == "images" && segments[3] == "viewport": return Route.viewport.index
        case ("api", 4) where segments[1] == "images" && segments[3] == "rating": return Route.rating.index
        case ("api", _): return unmatchedRoute
        case ("dzi", 2) where segments[1].hasSuffix(".dzi"): return Route.deepZoomDescriptor.index
        case ("dzi", 4), ("dzi", 5): return Route.deepZoomTile.index
        case ("dzi", _): return unmatchedRoute
        case ("images", 3) where segments[2] == "preview.jpeg" || segments[2] == "preview.avif": return Route.preview.index
        case ("images", _): return unmatchedRoute
        case ("healthz", 1): return Route.health.index
        case ("readyz", 1): return Route.readiness.index
        case ("metrics", 1): return Route.metrics.index
        case ("openapi.json", 1): return Route.openAPI.index
        case ("iiif", _) where segments.count >= 3 && (segments[1] == "3" || segments[1] == "2") && !segments[2].isEmpty:
            let v2 = segments[1] == "2"
            switch segments.count {
            case 3: return (v2 ? Route.iiif2Base : .iiifBase).index
            case 4 where segments[3].isEmpty: return (v2 ? Route.iiif2Base : .iiifBase).index
            case 4 where segments[3] == "info.json": return (v2 ? Route.iiif2Info : .iiifInfo).index
            case 7: return (v2 ? Route.iiif2Image : .iiifImage).index
            default: return unmatchedRoute
            }
        case ("iiif", 3) where segments[1] == "presentation" && segments[2] == "collection.json": return Route.presentationCollection.index
        case ("iiif", 4) where segments[1] == "presentation" && segments[2] == "gallery" && segments[3] == "manifest.json":
            return Route.presentationGallery.index
        case ("iiif", 4) where segments[1] == "presentation" && !segments[2].isEmpty && segments[3] == "manifest.json":
            return Route.presentationManifest.index
        case ("iiif", 5) where segments[1] == "presentation" && segments[2] == "image" && !segments[3].isEmpty
            && segments[4] == "manifest.json":
            return Route.presentationManifest.index
        case ("iiif", _): return unmatchedRoute
        default: return Route.staticFile.index
        }
    }
}
