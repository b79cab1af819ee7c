import ScrollGeometry
@testable import Tilescope

// The viewport answer as Foundation's encoder writes it: the oracle the hand-written JSON is compared
// with. Test-only: the server has one way to write the answer.

extension ViewportResponse: Encodable {
    enum CodingKeys: String, CodingKey {
        case image, zoomScale, minimumZoomScale, maximumZoomScale, contentSize, contentOffset, visibleRect
        case resolution, threshold, level, preview, tileURL, tiles, prefetch, frames
    }

    /// As synthesized, except that `level` is written as `null` rather than left out (`tileURL`, a tile's `url`
    /// and `prefetch` are left out when absent). The grid listing's `frames` come from the tiles' own frames,
    /// not from the pyramid as the server writes them: a column or row without a tile would be missing here.
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
        guard listing == .grid else {
            try container.encode(tiles, forKey: .tiles)
            try container.encodeIfPresent(prefetch, forKey: .prefetch)
            return
        }
        try container.encode(tiles.map { [$0.level, $0.column, $0.row] }, forKey: .tiles)
        try container.encodeIfPresent(prefetch?.map { [$0.level, $0.column, $0.row] }, forKey: .prefetch)
        try container.encode(FramesOracle.levels(of: tiles + (prefetch ?? [])), forKey: .frames)
    }
}

/// `frames` of the grid listing, from the listed tiles: per level in the order the tiles first use it, its
/// columns and rows from the smallest to the largest used, each with the frame piece of a tile that uses it.
struct FramesOracle: Encodable {
    struct Column: Encodable { let column: Int; let x: Double; let width: Double }
    struct Row: Encodable { let row: Int; let y: Double; let height: Double }
    let level: Int
    let columns: [Column]
    let rows: [Row]

    static func levels(of tiles: [ViewportResponse.TileJSON]) -> [FramesOracle] {
        var order: [Int] = []
        for tile in tiles where !order.contains(tile.level) { order.append(tile.level) }
        return order.map { level in
            let mine = tiles.filter { $0.level == level }
            let columns = mine.map(\.column), rows = mine.map(\.row)
            return FramesOracle(
                level: level,
                columns: (columns.min()!...columns.max()!).compactMap { c in
                    mine.first { $0.column == c }.map { Column(column: c, x: $0.frame.x, width: $0.frame.width) }
                },
                rows: (rows.min()!...rows.max()!).compactMap { r in
                    mine.first { $0.row == r }.map { Row(row: r, y: $0.frame.y, height: $0.frame.height) }
                })
        }
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
