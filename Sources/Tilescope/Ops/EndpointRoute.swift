import HTTPServer

/// The bounded set of route names that label metrics and logs: the kind of endpoint,
/// never the raw path, so an id per image cannot blow up the number of series.
extension Endpoint {
    /// Every route name, in the order of their metric series. The last one is for
    /// requests that matched no endpoint (bad paths, 404s of unknown URLs).
    static let routeNames = [
        "image_list", "image", "viewport", "rating", "gallery", "dzi_descriptor", "dzi_tile", "preview",
        "static", "healthz", "readyz", "metrics", "job", "iiif_base", "iiif_info", "iiif_image",
        "iiif2_base", "iiif2_info", "iiif2_image", "iiif_manifest", "iiif_gallery_manifest", "iiif_collection", "openapi",
        "unmatched",
    ]
    static let unmatchedRoute = routeNames.count - 1

    /// Index into `routeNames`.
    var routeIndex: Int {
        switch self {
        case .imageList: return 0
        case .image: return 1
        case .viewport: return 2
        case .rating: return 3
        case .gallery: return 4
        case .deepZoomDescriptor: return 5
        case .deepZoomTile: return 6
        case .preview: return 7
        case .staticFile: return 8
        case .health: return 9
        case .readiness: return 10
        case .metrics: return 11
        case .job: return 12
        case .iiifBase: return 13
        case .iiifInfo: return 14
        case .iiifImage: return 15
        case .iiif2Base: return 16
        case .iiif2Info: return 17
        case .iiif2Image: return 18
        case .presentationManifest: return 19
        case .presentationGallery: return 20
        case .presentationCollection: return 21
        case .openAPI: return 22
        }
    }

    /// The route a request went to, by the shape of its path: what `parse` would return for a
    /// well-formed path, and the same route for a malformed one of that shape (a tile path with
    /// a bad level counts as `dzi_tile` with its 400). A cheap classifier rather than `parse`,
    /// which costs ~1 us: this runs after every request. OpsEndpointTests checks both agree.
    static func routeIndex(of request: Request) -> Int {
        guard let segments = request.pathSegments else { return unmatchedRoute }
        guard let first = segments.first else { return 8 }
        switch (first, segments.count) {
        case ("api", 2) where segments[1] == "images": return 0
        case ("api", 2) where segments[1] == "gallery": return 4
        case ("api", 3) where segments[1] == "images": return 1
        case ("api", 3) where segments[1] == "jobs": return 12
        case ("api", 4) where segments[1] == "images" && segments[3] == "viewport": return 2
        case ("api", 4) where segments[1] == "images" && segments[3] == "rating": return 3
        case ("api", _): return unmatchedRoute
        case ("dzi", 2) where segments[1].hasSuffix(".dzi"): return 5
        case ("dzi", 4): return 6
        case ("dzi", _): return unmatchedRoute
        case ("images", 3) where segments[2] == "preview.jpeg": return 7
        case ("images", _): return unmatchedRoute
        case ("healthz", 1): return 9
        case ("readyz", 1): return 10
        case ("metrics", 1): return 11
        case ("openapi.json", 1): return 22
        case ("iiif", _) where segments.count >= 3 && (segments[1] == "3" || segments[1] == "2") && !segments[2].isEmpty:
            let shift = segments[1] == "2" ? 3 : 0
            switch segments.count {
            case 3: return 13 + shift
            case 4 where segments[3].isEmpty: return 13 + shift
            case 4 where segments[3] == "info.json": return 14 + shift
            case 7: return 15 + shift
            default: return unmatchedRoute
            }
        case ("iiif", 3) where segments[1] == "presentation" && segments[2] == "collection.json": return 21
        case ("iiif", 4) where segments[1] == "presentation" && segments[2] == "gallery" && segments[3] == "manifest.json":
            return 20
        case ("iiif", 4) where segments[1] == "presentation" && !segments[2].isEmpty && segments[3] == "manifest.json":
            return 19
        case ("iiif", 5) where segments[1] == "presentation" && segments[2] == "image" && !segments[3].isEmpty
            && segments[4] == "manifest.json":
            return 19
        case ("iiif", _): return unmatchedRoute
        default: return 8
        }
    }
}
