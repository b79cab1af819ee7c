import Catalog
import ScrollGeometry

/// Builds the Presentation 3.0 documents of gallery images: every id an absolute URL of this
/// server (from `--public-url` or the request's headers, like the Image API's), every Canvas
/// the size of its image, painted by the image with its Image API 3.0 service.
struct PresentationBuilder {
    /// An absolute URL for a path of this server.
    var url: (String) -> String
    var maxArea: Int
    var rights: String?
    var attribution: String?
    /// `?sort=...` as the client gave it (or empty), so that gallery-wide ids name the order they hold.
    var sortQuery: String

    static let prefix = "/iiif/presentation/"

    /// An image with its pyramid: only built images have a size, so only they are published.
    struct Item {
        var entry: GalleryEntry
        var pyramid: Pyramid
        /// A private image's probe service, listed on its painted image (`AuthServices`).
        var auth: AuthProbeService? = nil
    }

    /// `{id}/manifest.json`, except for an image whose id is `gallery`: that path is the whole
    /// gallery's, so its own Manifest is at `image/gallery/manifest.json` (which any id also answers).
    func manifestID(_ imageID: String) -> String {
        let folder = imageID == "gallery" ? "image/gallery" : IIIFService.encode(imageID)
        return url(Self.prefix + folder + "/manifest.json")
    }

    var galleryManifestID: String { url(Self.prefix + "gallery/manifest.json" + sortQuery) }

    func collectionID(page: Int?) -> String {
        let query = [sortQuery.isEmpty ? nil : String(sortQuery.dropFirst()), page.map { "page=\($0)" }].compactMap { $0 }
        return url(Self.prefix + "collection.json" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// One image's Manifest: its title, caption, file name, rating and (when the source says) pixel size, its
    /// Canvas, and a slide's associated images (its label, the macro photograph...) as Canvases after it.
    func manifest(_ item: Item) -> Presentation.Manifest {
        let entry = item.entry
        var metadata = [Presentation.LabelValue(label: Presentation.english("File name"),
                                                value: Presentation.text(entry.record.fileName))]
        metadata.append(Presentation.LabelValue(label: Presentation.english("Rating"),
                                                value: Presentation.english(Self.ratingText(entry.rating))))
        if let microns = entry.record.manifest?.micronsPerPixel {
            metadata.append(Presentation.LabelValue(label: Presentation.english("Pixel size"),
                                                    value: Presentation.english(Self.pixelSize(microns))))
        }
        let associated = (entry.record.manifest?.associatedImages ?? []).map { associatedCanvas($0, of: item) }
        return Presentation.Manifest(
            id: manifestID(entry.record.id), label: Presentation.text(entry.title),
            summary: entry.caption.map(Presentation.text), metadata: metadata, rights: rights,
            requiredStatement: requiredStatement, thumbnail: [thumbnail(item)], items: [canvas(item)] + associated)
    }

    /// `0.25 x 0.25 µm` (up to three decimals, as scanners state it).
    /// Every viewer's average and count ("6.4 of 10 (12 ratings)"): a manifest is the same for everyone,
    /// so it never shows one viewer's own rating.
    static func ratingText(_ rating: RatingSummary) -> String {
        guard let average = rating.average else { return "not rated" }
        let shown = (average * 10).rounded() / 10
        let number = shown == shown.rounded() ? String(Int(shown)) : String(shown)
        return "\(number) of 10 (\(rating.count) rating\(rating.count == 1 ? "" : "s"))"
    }

    static func pixelSize(_ microns: MicronsPerPixel) -> String {
        func text(_ value: Double) -> String {
            var out = String(format: "%.3f", value)
            while out.hasSuffix("0") { out.removeLast() }
            if out.hasSuffix(".") { out.removeLast() }
            return out
        }
        return "\(text(microns.x)) x \(text(microns.y)) µm"
    }

    /// The whole gallery (in its `sort` order) as one Manifest, a Canvas per image, so a viewer
    /// pages through it as the carousel does.
    func galleryManifest(_ items: [Item]) -> Presentation.Manifest {
        Presentation.Manifest(
            id: galleryManifestID, label: Presentation.english("Tilescope gallery"),
            summary: Presentation.english("\(items.count) image\(items.count == 1 ? "" : "s")"), metadata: nil,
            rights: rights, requiredStatement: requiredStatement, thumbnail: items.first.map { [thumbnail($0)] },
            items: items.map(canvas))
    }

    /// The gallery as a Collection of its images' Manifests. Presentation 3.0 pages a large
    /// Collection by nesting (it has no `next` for Collections): over `pageSize` images, the
    /// Collection lists Collections of `pageSize` Manifests each, at `?page=1`, `?page=2`, ...
    /// `page` must be within 1...pages (the caller checks).
    func collection(_ items: [Item], page: Int?, pageSize: Int) -> Presentation.Collection {
        let label = Presentation.english("Tilescope gallery")
        if let page {
            let range = Self.pageRange(page, count: items.count, pageSize: pageSize)
            return Presentation.Collection(
                id: collectionID(page: page), label: Presentation.english("Tilescope gallery, images \(range.lowerBound + 1) to \(range.upperBound)"),
                summary: nil, rights: rights, requiredStatement: requiredStatement,
                partOf: [Presentation.Reference(id: collectionID(page: nil), type: "Collection", label: label)],
                items: items[range].map(manifestReference))
        }
        let pages = Self.pageCount(items.count, pageSize: pageSize)
        let children = pages <= 1 ? items.map(manifestReference) : (1...pages).map { page in
            let range = Self.pageRange(page, count: items.count, pageSize: pageSize)
            return Presentation.Reference(id: collectionID(page: page), type: "Collection",
                                          label: Presentation.english("Images \(range.lowerBound + 1) to \(range.upperBound)"))
        }
        return Presentation.Collection(
            id: collectionID(page: nil), label: label,
            summary: Presentation.english("\(items.count) image\(items.count == 1 ? "" : "s")"), rights: rights,
            requiredStatement: requiredStatement, partOf: nil, items: children)
    }

    static func pageCount(_ count: Int, pageSize: Int) -> Int { (count + pageSize - 1) / pageSize }

    /// Indices of a 1-based page; `page` is within 1...pageCount.
    static func pageRange(_ page: Int, count: Int, pageSize: Int) -> Range<Int> {
        let start = (page - 1) * pageSize
        return start..<min(count, start + pageSize)
    }

    private func manifestReference(_ item: Item) -> Presentation.Reference {
        Presentation.Reference(id: manifestID(item.entry.record.id), type: "Manifest",
                               label: Presentation.text(item.entry.title), thumbnail: [thumbnail(item)])
    }

    private var requiredStatement: Presentation.LabelValue? {
        attribution.map { Presentation.LabelValue(label: Presentation.english("Attribution"), value: Presentation.text($0)) }
    }

    /// The image's own Canvas (the same id in its Manifest and in the gallery's), painted by
    /// the image at the largest size the Image API serves, with that service for deep zoom.
    private func canvas(_ item: Item) -> Presentation.Canvas {
        let id = item.entry.record.id
        let base = url(Self.prefix + IIIFService.encode(id))
        let canvasID = base + "/canvas"
        let pyramid = item.pyramid
        let service = url(IIIFService.prefix + IIIFService.encode(id))
        // What `full/max/0/default.jpg` gives: within maxArea and JPEG's longest side.
        let full = IIIFSize.fit(PixelSize(width: pyramid.width, height: pyramid.height), maxArea: maxArea,
                                maxSide: IIIFFormat.jpg.maxSideOfMax)
        let body = Presentation.Image(id: service + "/full/max/0/default.jpg", width: full.width, height: full.height,
                                      service: [.image(Presentation.ImageService(id: service))] + (item.auth.map { [.auth($0)] } ?? []))
        let annotation = Presentation.Annotation(id: base + "/annotation/painting", body: body, target: canvasID)
        return Presentation.Canvas(id: canvasID, label: Presentation.text(item.entry.title), width: pyramid.width,
                                   height: pyramid.height, thumbnail: [thumbnail(item)],
                                   items: [Presentation.AnnotationPage(id: base + "/page/painting", items: [annotation])])
    }

    /// A Canvas painted by one of a slide's associated images, a JPEG of its own size with no Image API service
    /// (it is small: `AssociatedImages`).
    private func associatedCanvas(_ associated: AssociatedImageEntry, of item: Item) -> Presentation.Canvas {
        let record = item.entry.record
        let base = url(Self.prefix + IIIFService.encode(record.id)) + "/associated/" + associated.name
        let canvasID = base + "/canvas"
        let image = Presentation.Image(
            id: url("/images/\(PyramidURLs.percentEncoded(record.id))/associated/\(associated.name).jpeg?v=\(record.version)"),
            width: associated.width, height: associated.height, service: nil)
        let annotation = Presentation.Annotation(id: base + "/annotation/painting", body: image, target: canvasID)
        return Presentation.Canvas(id: canvasID, label: Presentation.english(associated.name), width: associated.width,
                                   height: associated.height, thumbnail: [image],
                                   items: [Presentation.AnnotationPage(id: base + "/page/painting", items: [annotation])])
    }

    /// The stored preview (the pyramid level at most 1024 pixels a side), at its versioned URL.
    private func thumbnail(_ item: Item) -> Presentation.Image {
        let size = item.pyramid.size(ofLevel: item.pyramid.previewLevel())
        return Presentation.Image(id: url(item.entry.record.urls.preview), width: size.width, height: size.height, service: nil)
    }
}
