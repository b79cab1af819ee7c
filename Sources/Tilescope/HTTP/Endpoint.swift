import HTTPServer

/// Every URL Tilescope answers, parsed from the decoded path segments.
/// Shape errors (a non-numeric level, say) are thrown here; whether the image, level or
/// tile exists is for the handler, which knows the pyramid.
public enum Endpoint: Equatable, Sendable {
    case imageList
    case image(id: String)
    case viewport(id: String)
    case rating(id: String)
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
    /// `/images/{id}/preview.avif`: the preview in AVIF (`PreviewAVIF`).
    case previewAVIF(id: String)
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

    public var allowedMethods: [String] {
        switch self {
        case .viewport: return ["GET", "HEAD", "POST"]
        case .rating: return ["PUT"]
        case .imageList: return ["GET", "HEAD", "POST"]
        case .image: return ["GET", "HEAD", "DELETE"]
        default: return ["GET", "HEAD"]
        }
    }

    public static func parse(_ segments: [String]) throws -> Endpoint {
        switch segments.first {
        case "api": return try parseAPI(Array(segments.dropFirst()))
        case "dzi": return try parseDeepZoom(Array(segments.dropFirst()))
        case "iiif": return try parseIIIF(Array(segments.dropFirst()))
        case "images":
            guard segments.count == 3, segments[2] == "preview.jpeg" || segments[2] == "preview.avif" else {
                throw APIError.notFound("an image's previews are /images/{id}/preview.jpeg and /images/{id}/preview.avif")
            }
            return segments[2] == "preview.jpeg" ? .preview(id: segments[1]) : .previewAVIF(id: segments[1])
        case "healthz" where segments.count == 1: return .health
        case "readyz" where segments.count == 1: return .readiness
        case "metrics" where segments.count == 1: return .metrics
        case "openapi.json" where segments.count == 1: return .openAPI
        default:
            return .staticFile(path: segments)
        }
    }

    private static func parseAPI(_ rest: [String]) throws -> Endpoint {
        switch (rest.count, rest.first) {
        case (1, "images"): return .imageList
        case (1, "gallery"): return .gallery
        case (2, "images"): return .image(id: rest[1])
        case (2, "jobs"): return .job(id: rest[1])
        case (3, "images") where rest[2] == "viewport": return .viewport(id: rest[1])
        case (3, "images") where rest[2] == "rating": return .rating(id: rest[1])
        default: throw APIError.notFound("no API endpoint at /api/\(rest.joined(separator: "/"))")
        }
    }

    /// `/dzi/{id}.dzi` and `/dzi/{id}_files/{level}/{column}_{row}.jpeg`.
    private static func parseDeepZoom(_ rest: [String]) throws -> Endpoint {
        if rest.count == 1, rest[0].hasSuffix(".dzi") {
            return .deepZoomDescriptor(id: String(rest[0].dropLast(4)))
        }
        if rest.count == 4, rest[1].hasSuffix("_files") {
            let version = String(rest[1].dropLast(6))
            switch try parseDeepZoom(Array(rest.dropFirst())) {
            case let .deepZoomTile(_, level, column, row):
                return .deepZoomVersionedTile(id: rest[0], version: version, level: level, column: column, row: row, format: "jpeg")
            case let .deepZoomFormatTile(_, level, column, row, format):
                return .deepZoomVersionedTile(id: rest[0], version: version, level: level, column: column, row: row, format: format)
            default: break
            }
        }
        guard rest.count == 3, rest[0].hasSuffix("_files") else {
            throw APIError.notFound("Deep Zoom paths are /dzi/{id}.dzi and /dzi/{id}_files/{level}/{column}_{row}.jpeg")
        }
        let id = String(rest[0].dropLast(6))
        guard let level = naturalNumber(rest[1]) else {
            throw APIError.badRequest("level '\(rest[1].prefix(40))' is not a non-negative integer")
        }
        let format = rest[2].hasSuffix(".webp") ? "webp" : rest[2].hasSuffix(".avif") ? "avif" : "jpeg"
        guard rest[2].hasSuffix("." + format) else { throw APIError.notFound("tiles are .jpeg, .webp or .avif files") }
        let parts = rest[2].dropLast(format.count + 1).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let column = naturalNumber(parts[0]), let row = naturalNumber(parts[1]) else {
            throw APIError.badRequest("tile '\(rest[2].prefix(40))' is not {column}_{row}.\(format) with non-negative integers")
        }
        if format != "jpeg" { return .deepZoomFormatTile(id: id, level: level, column: column, row: row, format: format) }
        return .deepZoomTile(id: id, level: level, column: column, row: row)
    }

    /// Digits only (no sign, no spaces), at most 9 of them so that arithmetic cannot overflow.
    static func naturalNumber<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }
}
