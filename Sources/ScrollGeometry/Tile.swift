/// A tile to draw: its address and, by rule 10, its frame in content coordinates (points), overlap included.
public struct Tile: Hashable, Sendable {
    public let address: TileAddress
    public let frame: Rect

    /// Rule 10: the stored tile's level pixels, from `c*T - (c > 0 ? O : 0)` to `min(levelWidth, (c+1)*T + O)`
    /// (and the same for rows), multiplied by `zoomScale / s(L)`.
    public init(_ address: TileAddress, in pyramid: Pyramid, zoomScale: Double) {
        let pixels = pyramid.tileRect(level: address.level, column: address.column, row: address.row)
        self.address = address
        self.frame = Rect(pixels).scaled(by: zoomScale / pyramid.scale(ofLevel: address.level))
    }

    /// A frame already computed by rule 10 (see `TileFrames`).
    init(_ address: TileAddress, frame: Rect) {
        self.address = address
        self.frame = frame
    }
}
