import ScrollGeometry

/// The image information document (`info.json`) of IIIF Image API 2.1: the same sizes and
/// tiles as 3.0's, with 2.1's `@id` and a `profile` of the level 2 URI followed by what this
/// server offers beyond it.
struct IIIF2Info: Encodable {
    /// The second element of `profile`.
    struct Profile: Encodable {
        var formats = ["jpg", "png"] + IIIFFormat.extra.map(\.rawValue)
        var qualities = IIIFQuality.allCases.map(\.rawValue)
        var supports = [
            "baseUriRedirect", "canonicalLinkHeader", "cors", "jsonldMediaType", "mirroring", "profileLinkHeader",
            "regionByPct", "regionByPx", "regionSquare", "rotationArbitrary", "rotationBy90s", "sizeAboveFull",
            "sizeByConfinedWh", "sizeByDistortedWh", "sizeByH", "sizeByPct", "sizeByW", "sizeByWh",
        ]
        /// 2.1 declares the limits here, in the profile: the same as 3.0's (`IIIFInfo`).
        var maxWidth = IIIFFormat.declaredMaxSide
        var maxHeight = IIIFFormat.declaredMaxSide
        var maxArea: Int
    }

    /// `profile` is a heterogeneous array: a URI, then an object.
    struct ProfileList: Encodable {
        var profile: Profile
        func encode(to encoder: any Encoder) throws {
            var list = encoder.unkeyedContainer()
            try list.encode(IIIF2Info.profileURI)
            try list.encode(profile)
        }
    }

    var context = IIIF2Info.contextURI
    var id: String
    var `protocol` = "http://iiif.io/api/image"
    var width: Int
    var height: Int
    var profile: ProfileList
    var sizes: [IIIFInfo.Size]
    var tiles: [IIIFInfo.Tiles]
    var service: [IIIFInfoService]?

    static let contextURI = "http://iiif.io/api/image/2/context.json"
    static let profileURI = "http://iiif.io/api/image/2/level2.json"

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id = "@id"
        case `protocol`, width, height, profile, sizes, tiles, service
    }

    init(id: String, pyramid: Pyramid, maxArea: Int, micronsPerPixel: MicronsPerPixel? = nil, tileSize: PixelSize? = nil) {
        let v3 = IIIFInfo(id: id, pyramid: pyramid, maxArea: maxArea, micronsPerPixel: micronsPerPixel, tileSize: tileSize)
        service = v3.service
        self.id = id
        width = v3.width
        height = v3.height
        sizes = v3.sizes
        tiles = v3.tiles
        profile = ProfileList(profile: Profile(maxArea: maxArea))
    }
}
