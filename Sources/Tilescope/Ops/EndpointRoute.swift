import HTTPServer

/// The bounded set of route names that label metrics and logs: the kind of endpoint,
/// never the raw path, so an id per image cannot blow up the number of series.
extension Endpoint {
    /// Every route name, in the order of their metric series. The last one is for
    /// requests that matched no endpoint (bad paths, 404s of unknown URLs).
    static let routeNames = [
        "image_list", "image", "viewport", "rating", "gallery", "dzi_descriptor", "dzi_tile", "preview",
        "static", "healthz", "readyz", "metrics", "unmatched",
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
        }
    }

    /// The route of a request as the app would route it; `unmatchedRoute` when it has none.
    static func routeIndex(of request: Request) -> Int {
        guard request.rawPath.utf8.count <= TilescopeApp.maxPathBytes, let segments = request.pathSegments,
              let endpoint = try? parse(segments) else { return unmatchedRoute }
        return endpoint.routeIndex
    }
}
