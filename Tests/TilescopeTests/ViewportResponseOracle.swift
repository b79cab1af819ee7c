import ScrollGeometry
@testable import Tilescope

// The viewport answer as Foundation's encoder writes it: the oracle the hand-written JSON is compared
// with. Test-only: the server has one way to write the answer.

extension ViewportResponse: Encodable {
    enum CodingKeys: String, CodingKey {
        case image, zoomScale, minimumZoomScale, maximumZoomScale, contentSize, contentOffset, visibleRect
        case resolution, threshold, level, preview, tileURL, tiles, prefetch
    }

    /// As synthesized, except that `level` is written as `null` rather than left out (`tileURL`, a tile's `url`
    /// and `prefetch` are left out when absent).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(image, forKey: .image)
        try container.encode(zoomScale, forKey: .zoomScale)
        try container.encode(minimumZoomScale, forKey: .minimumZoomScale)
        try container.encode(maximumZoomScale, forKey: .maximumZoomScale)
        try container.encode(contentSize, forKey: .contentSize)
        try container.encode(contentOffset, forKey: .contentOffset)
        try container.encode(visibleRect, forKey: .visibleRect)
        try container.encode(resolution, forKey: .resolution)
        try container.encode(threshold, forKey: .threshold)
        try container.encode(level, forKey: .level)
        try container.encode(preview, forKey: .preview)
        try container.encodeIfPresent(tileURL, forKey: .tileURL)
        try container.encode(tiles, forKey: .tiles)
        try container.encodeIfPresent(prefetch, forKey: .prefetch)
    }
}

/// A key by its name.
private struct Keyed: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension ViewportResponse.Image: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keyed.self)
        try c.encode(id, forKey: Keyed(stringValue: "id"))
        try c.encode(width, forKey: Keyed(stringValue: "width"))
        try c.encode(height, forKey: Keyed(stringValue: "height"))
        try c.encode(tileSize, forKey: Keyed(stringValue: "tileSize"))
        try c.encode(overlap, forKey: Keyed(stringValue: "overlap"))
        try c.encode(maxLevel, forKey: Keyed(stringValue: "maxLevel"))
    }
}

extension ViewportResponse.Preview: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keyed.self)
        try c.encode(url, forKey: Keyed(stringValue: "url"))
        try c.encode(width, forKey: Keyed(stringValue: "width"))
        try c.encode(height, forKey: Keyed(stringValue: "height"))
    }
}

extension ViewportResponse.TileJSON: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keyed.self)
        try c.encode(level, forKey: Keyed(stringValue: "level"))
        try c.encode(column, forKey: Keyed(stringValue: "column"))
        try c.encode(row, forKey: Keyed(stringValue: "row"))
        try c.encodeIfPresent(url, forKey: Keyed(stringValue: "url"))
        try c.encode(frame, forKey: Keyed(stringValue: "frame"))
    }
}
