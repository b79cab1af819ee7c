import ScrollGeometry

/// The public URLs of one version of an image's pyramid: `.dzi`, tiles and preview, each with `?v={version}`.
///
/// The version in every URL makes them cacheable forever: a rebuilt pyramid gets new URLs. The id is
/// percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`), so any id yields a well-formed path.
public struct PyramidURLs: Hashable, Sendable {
    /// `/dzi/{id}.dzi?v={version}`
    public let dzi: String
    /// `/dzi/{id}_files/{level}/{col}_{row}.jpeg?v={version}`, the template as `ImageJSON.urls.tiles` shows it.
    public let tiles: String
    /// `/images/{id}/preview.jpeg?v={version}`
    public let preview: String
    private let tilePrefix: String
    private let tileSuffix: String
    /// The same pieces as bytes, for `ViewportJSON`: percent-encoded, so they never need JSON escaping.
    let tilePrefixBytes: [UInt8]
    let tileSuffixBytes: [UInt8]

    public init(imageID: String, version: some CustomStringConvertible) {
        let id = Self.percentEncoded(imageID)
        let v = Self.percentEncoded(version.description)
        dzi = "/dzi/\(id).dzi?v=\(v)"
        tilePrefix = "/dzi/\(id)_files/"
        tileSuffix = ".jpeg?v=\(v)"
        tiles = tilePrefix + "{level}/{col}_{row}" + tileSuffix
        preview = "/images/\(id)/preview.jpeg?v=\(v)"
        tilePrefixBytes = Array(tilePrefix.utf8)
        tileSuffixBytes = Array(tileSuffix.utf8)
    }

    /// `/dzi/{id}_files/{level}/{column}_{row}.jpeg?v={version}`
    public func tile(_ address: TileAddress) -> String {
        "\(tilePrefix)\(address.level)/\(address.column)_\(address.row)\(tileSuffix)"
    }

    public static func percentEncoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
