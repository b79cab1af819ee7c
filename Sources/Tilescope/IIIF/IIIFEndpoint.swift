/// The IIIF paths: the Image API 3.0 at `/iiif/3/{id}`, `/iiif/3/{id}/info.json` and
/// `/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`, the same under `/iiif/2/` for
/// Image API 2.1, and the Presentation API 3.0 under `/iiif/presentation/`.
/// Segments arrive percent-decoded one by one, so an encoded slash stays inside the id
/// (and then names no image: 404) instead of shifting the parameters.
extension Endpoint {
    static func parseIIIF(_ rest: [String]) throws -> Endpoint {
        if rest.first == "presentation" { return try parsePresentation(Array(rest.dropFirst())) }
        guard let version = rest.first, version == "3" || version == "2", rest.count >= 2, !rest[1].isEmpty else {
            throw APIError.notFound("IIIF Image API 3.0 lives at /iiif/3/{id}/info.json, 2.1 at /iiif/2/{id}/info.json, "
                + "the Presentation API at /iiif/presentation/{id}/manifest.json")
        }
        let id = rest[1]
        let v2 = version == "2"
        switch rest.count {
        case 2: return v2 ? .iiif2Base(id: id) : .iiifBase(id: id)
        case 3 where rest[2].isEmpty: return v2 ? .iiif2Base(id: id) : .iiifBase(id: id)
        case 3 where rest[2] == "info.json": return v2 ? .iiif2Info(id: id) : .iiifInfo(id: id)
        case 6:
            return v2
                ? .iiif2Image(id: id, region: rest[2], size: rest[3], rotation: rest[4], qualityAndFormat: rest[5])
                : .iiifImage(id: id, region: rest[2], size: rest[3], rotation: rest[4], qualityAndFormat: rest[5])
        default:
            throw APIError.notFound("no IIIF resource here: use /iiif/\(version)/{id}/info.json or "
                + "/iiif/\(version)/{id}/{region}/{size}/{rotation}/{quality}.{format}")
        }
    }

    /// `collection.json`, `gallery/manifest.json` (the whole gallery), `{id}/manifest.json`, and
    /// `image/{id}/manifest.json` for any id: the one URL of an image whose id is `gallery`.
    private static func parsePresentation(_ rest: [String]) throws -> Endpoint {
        switch rest.count {
        case 1 where rest[0] == "collection.json": return .presentationCollection
        case 2 where rest[0] == "gallery" && rest[1] == "manifest.json": return .presentationGallery
        case 2 where !rest[0].isEmpty && rest[1] == "manifest.json": return .presentationManifest(id: rest[0])
        case 3 where rest[0] == "image" && !rest[1].isEmpty && rest[2] == "manifest.json":
            return .presentationManifest(id: rest[1])
        default:
            throw APIError.notFound("IIIF Presentation resources are /iiif/presentation/collection.json, "
                + "/iiif/presentation/gallery/manifest.json and /iiif/presentation/{id}/manifest.json "
                + "(or /iiif/presentation/image/{id}/manifest.json)")
        }
    }
}
