import HTTPServer

/// IIIF Image API 2.1 beside 3.0, at `/iiif/2/{id}`: its own info.json and size syntax,
/// the same pyramids, renderer, cache and tile files as 3.0.
extension TilescopeApp {
    static let iiif2Prefix = "/iiif/2/"

    func iiif2BaseURI(_ id: String, _ request: Request) -> String {
        iiif.url(Self.iiif2Prefix + IIIFService.encode(id), request: request)
    }

    /// `GET /iiif/2/{id}`: 303 to the image information document.
    func iiif2Redirect(_ id: String, _ request: Request) throws -> Response {
        _ = try record(id)
        return Response(status: 303, headers: [
            ("Location", iiif2BaseURI(id, request) + "/info.json"), ("Cache-Control", "no-cache"),
        ])
    }

    /// `GET /iiif/2/{id}/info.json`, as JSON-LD when the client asks for it.
    func iiif2Info(_ id: String, _ request: Request) throws -> Reply {
        try info(id, base: iiif2BaseURI(id, request), apiVersion: 2, request) { base, manifest, maxArea, tileSize, auth in
            var info = IIIF2Info(id: base, pyramid: manifest.pyramid, maxArea: maxArea,
                                 micronsPerPixel: manifest.micronsPerPixel, tileSize: tileSize)
            if let auth { info.service = (info.service ?? []) + [.auth(auth)] }
            return JSON.encode(info)
        }
    }

    /// `GET /iiif/2/{id}/{region}/{size}/{rotation}/{quality}.{format}`.
    func iiif2Image(_ id: String, region: String, size: String, rotation: String, qualityAndFormat: String,
                    _ request: Request) throws -> Reply {
        let (record, manifest) = try readyImage(id)
        let pyramid = manifest.pyramid
        let rendering = try IIIF2ImageRequest.parse(region: region, size: size, rotation: rotation,
                                                    qualityAndFormat: qualityAndFormat)
            .resolve(width: pyramid.width, height: pyramid.height, maxArea: iiif.maxArea)
        return try serve(rendering, of: record, manifest, base: iiif2BaseURI(id, request),
                         profileURI: IIIF2Info.profileURI, request)
    }
}
