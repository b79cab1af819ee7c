import Catalog
import HTTPServer

/// IIIF Presentation API 3.0: `/iiif/presentation/{id}/manifest.json`, the whole gallery as
/// `/iiif/presentation/gallery/manifest.json` and as `/iiif/presentation/collection.json`.
/// The gallery-wide ones take `sort` like `/api/images`; only built images are included.
extension TilescopeApp {
    func presentationManifest(_ id: String, _ request: Request) throws -> Response {
        let (record, manifest) = try readyImage(id)
        let item = PresentationBuilder.Item(entry: try galleryData.entry(record, viewer: nil), pyramid: manifest.pyramid,
                                            auth: authProbe(for: record, request))
        return presentationResponse(JSON.encode(try presentationBuilder(request).manifest(item)), request)
    }

    func presentationGallery(_ request: Request) throws -> Response {
        let items = try presentationItems(request)
        guard !items.isEmpty else {
            throw APIError.notFound("the gallery has no built images yet, and a Manifest needs at least one Canvas")
        }
        return presentationResponse(JSON.encode(try presentationBuilder(request).galleryManifest(items)), request)
    }

    func presentationCollection(_ request: Request) throws -> Response {
        let items = try presentationItems(request)
        let pageSize = iiif.collectionPageSize
        var page: Int?
        if let text = try request.argument("page") {
            let pages = PresentationBuilder.pageCount(items.count, pageSize: pageSize)
            guard let number = Endpoint.naturalNumber(text), number >= 1 else {
                throw APIError.badRequest("page must be a whole number from 1 to \(Self.maxCollectionPage), not '\(text.prefix(40))'")
            }
            guard number <= pages else {
                throw APIError.notFound("the collection has \(pages) page\(pages == 1 ? "" : "s") of \(pageSize) images; there is no page \(number)")
            }
            page = number
        }
        let collection = try presentationBuilder(request).collection(items, page: page, pageSize: pageSize)
        return presentationResponse(JSON.encode(collection), request)
    }

    /// The largest `page` of the Collection that is read as a number (`Endpoint.naturalNumber`: nine digits);
    /// a page past the Collection's last one is a 404.
    static let maxCollectionPage = 999_999_999

    /// The gallery's built images in the requested order.
    private func presentationItems(_ request: Request) throws -> [PresentationBuilder.Item] {
        try galleryOrder(request, viewer: nil).compactMap { entry in
            guard case .ready(let manifest) = entry.record.status else { return nil }
            return PresentationBuilder.Item(entry: entry, pyramid: manifest.pyramid)
        }
    }

    private func presentationBuilder(_ request: Request) throws -> PresentationBuilder {
        // galleryOrder has already refused an unknown sort; the id keeps the one given, normalised.
        let sort = request.query["sort"].flatMap { GallerySort(query: $0) }.map { "?sort=\($0.rawValue)" } ?? ""
        let iiif = self.iiif
        return PresentationBuilder(url: { iiif.url($0, request: request) }, maxArea: iiif.maxArea,
                                   rights: iiif.rights, attribution: iiif.attribution, sortQuery: sort)
    }

    /// JSON-LD with the Presentation 3 context, validated by a hash of the body: it changes with
    /// captions, ratings and the gallery, so caches revalidate every time and mostly get a 304.
    private func presentationResponse(_ body: [UInt8], _ request: Request) -> Response {
        let etag = DocumentETag(.presentation, body: body).text
        let headers: [(name: String, value: String)] = [
            ("Content-Type", Presentation.mediaType), ("ETag", etag), ("Cache-Control", HTTPCaching.revalidate),
            ("Vary", "Host, X-Forwarded-Host, X-Forwarded-Proto"),
        ]
        if HTTPCaching.notModified(request, etag: etag) { return Response(status: 304, headers: headers) }
        return Response(status: 200, headers: headers, body: .bytes(body))
    }
}
