import Catalog
import ScrollGeometry

/// An image as the JSON API shows it.
public struct ImageJSON: Encodable, Sendable {
    public struct URLs: Encodable, Sendable {
        public var dzi: String
        public var tiles: String
        public var preview: String
        public var viewport: String
        /// Each tile format this server makes (`DeepZoomTileFormat.offered`), by its extension: the tiles
        /// template in it and the preview to draw with it. Clients take these as they are: they never
        /// rewrite `tiles` or `preview` to name another format.
        public var formats: [String: FormatURLs]
    }

    /// One of a slide's associated images (its label, the macro photograph of the glass...): a JPEG of its own.
    public struct AssociatedImage: Encodable, Sendable, Equatable {
        public var name: String
        public var width: Int
        public var height: Int
        /// `/images/{id}/associated/{name}.jpeg?v={version}`.
        public var url: String
    }

    /// The URLs of an image in one tile format.
    public struct FormatURLs: Encodable, Sendable, Equatable {
        public var tiles: String
        public var preview: String
        /// The tiles of the levels between Deep Zoom's in this format (`BetweenLevel`), for JPEG and AVIF, when
        /// the image has them (not a transparent image, nor a source served directly).
        public var between: String?
    }

    public var id: String
    public var title: String
    public var caption: String?
    public var fileName: String
    public var width: Int?
    public var height: Int?
    public var tileSize: Int
    public var overlap: Int
    public var maxLevel: Int?
    public var previewLevel: Int?
    /// Levels `0..<readyLevels` are served (the descriptor and preview too once it is above 0):
    /// a progressive build publishes the coarse levels first, then the finer ones.
    public var readyLevels: Int?
    /// Whether the image is transparent: its PNG, WebP and AVIF tiles and `preview.png` keep the alpha, and
    /// its JPEG ones are laid over the server's background (`--background`). false until a pyramid says so.
    public var alpha: Bool
    /// `direct` for a source served from its own levels (no build: JPEG tiles only), else `built`.
    public var served: String
    /// Microns per pixel across and down, when the source says (a slide's scanner): for a scale bar.
    public var micronsPerPixel: MicronsPerPixel?
    /// A slide's associated images, when it has any (only sources served directly through OpenSlide do).
    public var associatedImages: [AssociatedImage]?
    public var status: String
    public var reason: String?
    public var progress: Int?
    public var etaSeconds: Int?
    public var version: String
    /// The asking viewer's own rating (the field's name from before ratings were per viewer, so older
    /// clients keep working); null when they have not rated the image.
    public var rating: Int?
    /// Every viewer's mean rating, to two decimals; null when nobody has rated.
    public var ratingAverage: Double?
    public var ratingCount: Int
    public var urls: URLs

    public init(_ record: ImageRecord, title: String, caption: String? = nil, rating: RatingSummary = .none) {
        let pyramid = record.pyramid
        id = record.id
        self.title = title
        self.caption = caption
        fileName = record.fileName
        width = pyramid?.width
        height = pyramid?.height
        tileSize = pyramid?.tileSize ?? 254
        overlap = pyramid?.overlap ?? 1
        maxLevel = pyramid?.maxLevel
        previewLevel = pyramid?.previewLevel()
        alpha = (record.manifest ?? record.partial)?.isTransparent ?? false
        let direct = record.manifest?.isDirect ?? false
        served = direct ? "direct" : "built"
        micronsPerPixel = record.manifest?.micronsPerPixel
        associatedImages = record.manifest?.associatedImages.map { entries in
            entries.map {
                AssociatedImage(name: $0.name, width: $0.width, height: $0.height,
                                url: "/images/\(PyramidURLs.percentEncoded(record.id))/associated/\($0.name).jpeg?v=\(record.version)")
            }
        }
        status = record.status.name
        switch record.status {
        case .ready: readyLevels = pyramid.map { $0.maxLevel + 1 }
        case .queued, .building: readyLevels = record.partial?.levelsReady ?? 0
        case .failed: readyLevels = nil
        }
        switch record.status {
        case .queued: progress = 0
        case .building(let build): progress = max(0, min(99, build.percent)); etaSeconds = build.etaSeconds  // 100 is "ready"
        case .failed(let why): reason = why
        case .ready: break
        }
        version = record.version
        self.rating = rating.own
        ratingAverage = rating.average.map { ($0 * 100).rounded() / 100 }
        ratingCount = rating.count
        let links = record.urls, transparent = alpha
        urls = URLs(dzi: links.dzi, tiles: links.tiles, preview: links.preview,
                    viewport: "/api/images/\(PyramidURLs.percentEncoded(record.id))/viewport",
                    formats: Dictionary(uniqueKeysWithValues: (direct ? [.jpeg] : DeepZoomTileFormat.offered(transparent: transparent)).map { format in
                        (format.rawValue, FormatURLs(tiles: links.tiles(in: format),
                                                     preview: links.preview(for: format, transparent: transparent),
                                                     between: direct || transparent ? nil : links.between(in: format)))
                    }))
    }

    /// This image's URLs under `mount` (a signed URL's `/signed/{token}`), so a client that reached the image
    /// through a signed base keeps the token on every tile, preview and viewport request.
    func mounted(_ mount: String) -> ImageJSON {
        guard !mount.isEmpty else { return self }
        var json = self
        json.urls.dzi = mount + urls.dzi
        json.urls.tiles = mount + urls.tiles
        json.urls.preview = mount + urls.preview
        json.urls.viewport = mount + urls.viewport
        json.urls.formats = urls.formats.mapValues {
            FormatURLs(tiles: mount + $0.tiles, preview: mount + $0.preview, between: $0.between.map { mount + $0 })
        }
        json.associatedImages = associatedImages?.map { image in
            var image = image
            image.url = mount + image.url
            return image
        }
        return json
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, caption, fileName, width, height, tileSize, overlap, maxLevel, previewLevel, readyLevels, alpha, served
        case micronsPerPixel, associatedImages
        case status, reason, progress, etaSeconds, version, rating, ratingAverage, ratingCount, urls
    }

    /// `rating` and `ratingAverage` are always present (null until rated), as the API promises.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(caption, forKey: .caption)
        try container.encode(fileName, forKey: .fileName)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encode(tileSize, forKey: .tileSize)
        try container.encode(overlap, forKey: .overlap)
        try container.encodeIfPresent(maxLevel, forKey: .maxLevel)
        try container.encodeIfPresent(previewLevel, forKey: .previewLevel)
        try container.encodeIfPresent(readyLevels, forKey: .readyLevels)
        try container.encode(alpha, forKey: .alpha)
        try container.encode(served, forKey: .served)
        try container.encodeIfPresent(micronsPerPixel, forKey: .micronsPerPixel)
        try container.encodeIfPresent(associatedImages, forKey: .associatedImages)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(progress, forKey: .progress)
        try container.encodeIfPresent(etaSeconds, forKey: .etaSeconds)
        try container.encode(version, forKey: .version)
        try container.encode(rating, forKey: .rating)
        try container.encode(ratingAverage, forKey: .ratingAverage)
        try container.encode(ratingCount, forKey: .ratingCount)
        try container.encode(urls, forKey: .urls)
    }
}
