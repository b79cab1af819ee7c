import HTTPServer

/// One shape of URL path that Tilescope answers: its segments, the route it is counted under in metrics
/// and logs, and the endpoint its values make. Every shape is in `URLShape.all`, and parsing
/// (`Endpoint.parse`), the route of a finished request (`Endpoint.routeIndex(of:)`) and the URLs Tilescope
/// writes (`path`, `PyramidURLs`) all read that one table: a shape is added, or changed, in one place.
struct URLShape: Sendable {
    /// A path segment of the shape.
    enum Part: Sendable, Equatable {
        /// Exactly this text.
        case literal(String)
        /// A value (an image id, a version, a IIIF parameter) followed by `suffix`, which is not part of it;
        /// `nonEmpty` when the value may not be empty.
        case value(suffix: String, nonEmpty: Bool)
        /// A pyramid level: digits (any segment has this shape; its value is checked when parsed).
        case level
        /// A tile: `{column}_{row}.{format}`, the format one of `tileFormats`.
        case tile
        /// Nothing: the empty last segment of a path that ends with a slash.
        case empty
    }

    /// The values a path of a shape carries, in the order of its parts.
    struct Values: Sendable {
        var strings: [String] = []
        var level = 0
        var column = 0
        var row = 0
        var format = "jpeg"
    }

    let parts: [Part]
    let route: Endpoint.Route
    let make: @Sendable (Values) -> Endpoint

    /// Tile files' extensions: the stored JPEG and the formats made from it (`DeepZoomTileFormat`).
    static let tileFormats = DeepZoomTileFormat.allCases.map(\.rawValue)

    static func literal(_ text: String) -> Part { .literal(text) }
    static let id = Part.value(suffix: "", nonEmpty: false)
    static let nonEmptyID = Part.value(suffix: "", nonEmpty: true)
    static let parameter = Part.value(suffix: "", nonEmpty: false)

    /// Whether `segments` have this shape: its literals and suffixes, whatever the values.
    func fits(_ segments: [String]) -> Bool {
        guard segments.count == parts.count else { return false }
        for (part, segment) in zip(parts, segments) {
            switch part {
            case let .literal(text): if segment != text { return false }
            case let .value(suffix, nonEmpty):
                if !segment.hasSuffix(suffix) || (nonEmpty && segment.utf8.count == suffix.utf8.count) { return false }
            case .level, .tile: break
            case .empty: if !segment.isEmpty { return false }
            }
        }
        return true
    }

    /// The values of `segments`, which `fit` this shape: a 400 for a level or tile name that is not digits,
    /// a 404 for a tile of a format there is none of.
    func values(of segments: [String]) throws -> Values {
        var values = Values()
        for (part, segment) in zip(parts, segments) {
            switch part {
            case .literal, .empty: break
            case let .value(suffix, _): values.strings.append(String(segment.dropLast(suffix.count)))
            case .level:
                guard let level = Endpoint.naturalNumber(segment) else {
                    throw APIError.badRequest("level '\(segment.prefix(40))' is not a non-negative integer")
                }
                values.level = level
            case .tile:
                guard let format = Self.tileFormats.first(where: { segment.hasSuffix("." + $0) }) else {
                    throw APIError.notFound("tiles are .jpeg, .webp, .avif or .png files")
                }
                let name = segment.dropLast(format.count + 1).split(separator: "_", omittingEmptySubsequences: false)
                guard name.count == 2, let column = Endpoint.naturalNumber(name[0]), let row = Endpoint.naturalNumber(name[1]) else {
                    throw APIError.badRequest("tile '\(segment.prefix(40))' is not {column}_{row}.\(format) with non-negative integers")
                }
                (values.column, values.row, values.format) = (column, row, format)
            }
        }
        return values
    }

    /// The path of this shape with `values` in it, each value percent-encoded: what `values(of:)` reads
    /// back from the decoded segments.
    func path(_ values: Values) -> String {
        spelled({ PyramidURLs.percentEncoded(values.strings[$0]) }, level: String(values.level),
                tile: "\(values.column)_\(values.row).\(values.format)")
    }

    /// The path as a template, each value written `{name}` (`names` in order), the level `{level}` and a tile
    /// `{col}_{row}.{format}`: `/dzi/{id}_files/{level}/{col}_{row}.jpeg`, as `ImageJSON.urls.tiles` shows it.
    func template(names: [String], format: String = "jpeg") -> String {
        spelled({ "{\(names[$0])}" }, level: "{level}", tile: "{col}_{row}.\(format)")
    }

    private func spelled(_ value: (Int) -> String, level: String, tile: String) -> String {
        var path = "", index = 0
        for part in parts {
            path += "/"
            switch part {
            case let .literal(text): path += text
            case let .value(suffix, _):
                path += value(index) + suffix
                index += 1
            case .level: path += level
            case .tile: path += tile
            case .empty: break
            }
        }
        return path
    }
}

extension URLShape {
    /// Every shape, the more specific first where two could fit the same path
    /// (`/iiif/presentation/gallery/manifest.json` before `/iiif/presentation/{id}/manifest.json`).
    static let all: [URLShape] = api + deepZoom + previews + operations + iiif(3) + iiif(2) + presentation + auth

    static let api: [URLShape] = [
        URLShape(parts: [literal("api"), literal("images")], route: .imageList) { _ in .imageList },
        URLShape(parts: [literal("api"), literal("gallery")], route: .gallery) { _ in .gallery },
        URLShape(parts: [literal("api"), literal("session")], route: .session) { _ in .session },
        URLShape(parts: [literal("api"), literal("images"), id], route: .image) { .image(id: $0.strings[0]) },
        URLShape(parts: [literal("api"), literal("jobs"), id], route: .job) { .job(id: $0.strings[0]) },
        URLShape(parts: [literal("api"), literal("images"), id, literal("viewport")], route: .viewport) { .viewport(id: $0.strings[0]) },
        URLShape(parts: [literal("api"), literal("images"), id, literal("rating")], route: .rating) { .rating(id: $0.strings[0]) },
        URLShape(parts: [literal("api"), literal("images"), id, literal("signed-urls")], route: .signedURLs) {
            .signedURLs(id: $0.strings[0])
        },
    ]

    static let deepZoomDescriptor = URLShape(parts: [literal("dzi"), .value(suffix: ".dzi", nonEmpty: false)],
                                             route: .deepZoomDescriptor) { .deepZoomDescriptor(id: $0.strings[0]) }
    /// `/dzi/{id}_files/{level}/{column}_{row}.{format}`
    static let deepZoomTile = URLShape(parts: [literal("dzi"), .value(suffix: "_files", nonEmpty: false), .level, .tile],
                                       route: .deepZoomTile) { values in
        values.format == "jpeg"
            ? .deepZoomTile(id: values.strings[0], level: values.level, column: values.column, row: values.row)
            : .deepZoomFormatTile(id: values.strings[0], level: values.level, column: values.column, row: values.row,
                                  format: values.format)
    }
    /// `/dzi/{id}/{version}_files/{level}/{column}_{row}.{format}`: the tiles folder a descriptor without `?v=`
    /// names (`VersionedTiles`).
    static let deepZoomVersionedTile = URLShape(
        parts: [literal("dzi"), id, .value(suffix: "_files", nonEmpty: false), .level, .tile], route: .deepZoomTile) { values in
        .deepZoomVersionedTile(id: values.strings[0], version: values.strings[1], level: values.level, column: values.column,
                               row: values.row, format: values.format)
    }
    static let deepZoom = [deepZoomDescriptor, deepZoomTile, deepZoomVersionedTile]

    static let preview = URLShape(parts: [literal("images"), id, literal("preview.jpeg")], route: .preview) { .preview(id: $0.strings[0]) }
    static let previewAVIF = URLShape(parts: [literal("images"), id, literal("preview.avif")], route: .preview) {
        .previewFormat(id: $0.strings[0], format: "avif")
    }
    static let previewPNG = URLShape(parts: [literal("images"), id, literal("preview.png")], route: .preview) {
        .previewFormat(id: $0.strings[0], format: "png")
    }
    static let associatedImage = URLShape(
        parts: [literal("images"), id, literal("associated"), .value(suffix: ".jpeg", nonEmpty: true)], route: .preview) {
        .associatedImage(id: $0.strings[0], name: $0.strings[1])
    }
    /// `/images/{id}/between/{level}/{step}/{column}_{row}.{format}`
    static let betweenTile = URLShape(
        parts: [literal("images"), id, literal("between"), .level, parameter, .tile], route: .betweenTile) { values in
        .betweenTile(id: values.strings[0], level: values.level, step: values.strings[1], column: values.column,
                     row: values.row, format: values.format)
    }
    static let previews = [preview, previewAVIF, previewPNG, associatedImage, betweenTile]

    static let operations: [URLShape] = [
        URLShape(parts: [literal("healthz")], route: .health) { _ in .health },
        URLShape(parts: [literal("readyz")], route: .readiness) { _ in .readiness },
        URLShape(parts: [literal("metrics")], route: .metrics) { _ in .metrics },
        URLShape(parts: [literal("openapi.json")], route: .openAPI) { _ in .openAPI },
    ]

    /// The Image API at `/iiif/3/` or `/iiif/2/`: the base URI (with or without its slash), info.json, images.
    static func iiif(_ version: Int) -> [URLShape] {
        let v2 = version == 2, head = [literal("iiif"), literal(String(version)), nonEmptyID]
        return [
            URLShape(parts: head, route: v2 ? .iiif2Base : .iiifBase) { v2 ? .iiif2Base(id: $0.strings[0]) : .iiifBase(id: $0.strings[0]) },
            URLShape(parts: head + [.empty], route: v2 ? .iiif2Base : .iiifBase) {
                v2 ? .iiif2Base(id: $0.strings[0]) : .iiifBase(id: $0.strings[0])
            },
            URLShape(parts: head + [literal("info.json")], route: v2 ? .iiif2Info : .iiifInfo) {
                v2 ? .iiif2Info(id: $0.strings[0]) : .iiifInfo(id: $0.strings[0])
            },
            URLShape(parts: head + [parameter, parameter, parameter, parameter], route: v2 ? .iiif2Image : .iiifImage) { values in
                let s = values.strings
                return v2 ? .iiif2Image(id: s[0], region: s[1], size: s[2], rotation: s[3], qualityAndFormat: s[4])
                    : .iiifImage(id: s[0], region: s[1], size: s[2], rotation: s[3], qualityAndFormat: s[4])
            },
        ]
    }

    /// `collection.json`, `gallery/manifest.json` (the whole gallery), `{id}/manifest.json`, and
    /// `image/{id}/manifest.json` for any id: the one URL of an image whose id is `gallery`.
    static let presentation: [URLShape] = [
        URLShape(parts: [literal("iiif"), literal("presentation"), literal("collection.json")], route: .presentationCollection) { _ in
            .presentationCollection
        },
        URLShape(parts: [literal("iiif"), literal("presentation"), literal("gallery"), literal("manifest.json")],
                 route: .presentationGallery) { _ in .presentationGallery },
        URLShape(parts: [literal("iiif"), literal("presentation"), nonEmptyID, literal("manifest.json")],
                 route: .presentationManifest) { .presentationManifest(id: $0.strings[0]) },
        URLShape(parts: [literal("iiif"), literal("presentation"), literal("image"), nonEmptyID, literal("manifest.json")],
                 route: .presentationManifest) { .presentationManifest(id: $0.strings[0]) },
    ]

    /// IIIF Authorization Flow 2.0's services (`AuthServices`).
    static let auth: [URLShape] = [
        URLShape(parts: [literal("auth"), literal("login")], route: .login) { _ in .login },
        URLShape(parts: [literal("auth"), literal("logout")], route: .logout) { _ in .logout },
        URLShape(parts: [literal("auth"), literal("token")], route: .accessToken) { _ in .accessToken },
        URLShape(parts: [literal("auth"), literal("external")], route: .externalAccess) { _ in .externalAccess },
        URLShape(parts: [literal("auth"), literal("probe"), nonEmptyID], route: .probe) { .probe(id: $0.strings[0]) },
        URLShape(parts: [literal("auth"), literal("degraded"), .value(suffix: ".jpeg", nonEmpty: true)], route: .degraded) {
            .degraded(id: $0.strings[0])
        },
    ]

    /// The shapes whose first segment is `first`, found without walking the whole table. A short list compared
    /// name by name, not a dictionary: eight first segments cost less to compare than one to hash, and every
    /// request routed in Swift looks twice (its endpoint, its metrics label).
    static func starting(with first: String) -> [URLShape] {
        for group in byFirstSegment where group.first == first { return group.shapes }
        return []
    }

    private static let byFirstSegment: [(first: String, shapes: [URLShape])] = {
        var groups: [(first: String, shapes: [URLShape])] = []
        for shape in all {
            guard case let .literal(text) = shape.parts.first else { continue }
            if let index = groups.firstIndex(where: { $0.first == text }) {
                groups[index].shapes.append(shape)
            } else {
                groups.append((text, [shape]))
            }
        }
        return groups
    }()
}
