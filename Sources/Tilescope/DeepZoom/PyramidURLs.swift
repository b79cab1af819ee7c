import ScrollGeometry

/// The public URLs of one version of an image's pyramid: `.dzi`, tiles and preview, each with `?v={version}`.
///
/// The version in every URL makes them cacheable forever: a rebuilt pyramid gets new URLs. The id is
/// percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`), so any id yields a well-formed path.
///
/// Every library record holds one, so it keeps only the two byte strings the viewport answer writes
/// (`/dzi/{id}_files/` and `.jpeg?v={version}`) and makes the other URLs from them when asked: a
/// gallery of 100,000 images pays two small buffers per image, not seven strings (docs/gallery-scale.md).
public struct PyramidURLs: Hashable, Sendable {
    /// The same pieces as bytes, for `ViewportJSON`: percent-encoded, so they never need JSON escaping.
    let tilePrefixBytes: [UInt8]
    let tileSuffixBytes: [UInt8]

    public init(imageID: String, version: some CustomStringConvertible) {
        // Bytes appended straight into the two arrays: the viewport answer makes these per request, where
        // encoding into Strings and interpolating them took four times as many allocations.
        let version = version.description
        var prefix: [UInt8] = []
        prefix.reserveCapacity(12 + 3 * imageID.utf8.count)
        prefix.append(contentsOf: "/dzi/".utf8)
        Self.appendPercentEncoded(imageID, to: &prefix)
        prefix.append(contentsOf: "_files/".utf8)
        var suffix: [UInt8] = []
        suffix.reserveCapacity(8 + 3 * version.utf8.count)
        suffix.append(contentsOf: ".jpeg?v=".utf8)
        Self.appendPercentEncoded(version, to: &suffix)
        tilePrefixBytes = prefix
        tileSuffixBytes = suffix
    }

    private var tilePrefix: String { String(decoding: tilePrefixBytes, as: UTF8.self) }
    private var tileSuffix: String { String(decoding: tileSuffixBytes, as: UTF8.self) }
    /// `{id}` percent-encoded, from the tile prefix `/dzi/{id}_files/`.
    private var encodedID: String { String(decoding: tilePrefixBytes.dropFirst(5).dropLast(7), as: UTF8.self) }
    /// `v={version}` percent-encoded, from the tile suffix `.jpeg?v={version}`.
    private var versionQuery: String { String(decoding: tileSuffixBytes.dropFirst(6), as: UTF8.self) }

    /// `/dzi/{id}.dzi?v={version}`
    public var dzi: String { "/dzi/\(encodedID).dzi?\(versionQuery)" }
    /// `/dzi/{id}_files/{level}/{col}_{row}.jpeg?v={version}`, the template as `ImageJSON.urls.tiles` shows it.
    public var tiles: String { tilePrefix + "{level}/{col}_{row}" + tileSuffix }
    /// `/images/{id}/preview.jpeg?v={version}`
    public var preview: String {
        // From the bytes in one buffer: every viewport answer names its preview, and going through
        // `encodedID` and `versionQuery` made three Strings to interpolate into a fourth.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tilePrefixBytes.count + tileSuffixBytes.count + 16)
        bytes.append(contentsOf: "/images/".utf8)
        bytes.append(contentsOf: tilePrefixBytes[5..<(tilePrefixBytes.count - 7)])  // {id} of /dzi/{id}_files/
        bytes.append(contentsOf: "/preview.jpeg?".utf8)
        bytes.append(contentsOf: tileSuffixBytes[6...])  // v={version} of .jpeg?v={version}
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `/dzi/{id}_files/{level}/{column}_{row}.jpeg?v={version}`
    public func tile(_ address: TileAddress) -> String {
        "\(tilePrefix)\(address.level)/\(address.column)_\(address.row)\(tileSuffix)"
    }
    public static func percentEncoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        appendPercentEncoded(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` with everything but `A-Z a-z 0-9 - . _ ~` percent-encoded.
    static func appendPercentEncoded(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0xF))
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
