/// `/iiif/3/{id}`, `/iiif/3/{id}/info.json` and `/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`.
/// Segments arrive percent-decoded one by one, so an encoded slash stays inside the id
/// (and then names no image: 404) instead of shifting the parameters.
extension Endpoint {
    static func parseIIIF(_ rest: [String]) throws -> Endpoint {
        guard rest.first == "3", rest.count >= 2, !rest[1].isEmpty else {
            throw APIError.notFound("IIIF Image API 3.0 lives at /iiif/3/{id}/info.json")
        }
        let id = rest[1]
        switch rest.count {
        case 2: return .iiifBase(id: id)
        case 3 where rest[2].isEmpty: return .iiifBase(id: id)
        case 3 where rest[2] == "info.json": return .iiifInfo(id: id)
        case 6: return .iiifImage(id: id, region: rest[2], size: rest[3], rotation: rest[4], qualityAndFormat: rest[5])
        default:
            throw APIError.notFound("no IIIF resource here: use /iiif/3/{id}/info.json or "
                + "/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}")
        }
    }
}
