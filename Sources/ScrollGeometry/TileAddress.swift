/// One stored tile of a Deep Zoom pyramid: `{level}/{column}_{row}`.
public struct TileAddress: Hashable, Sendable, Codable {
    public var level: Int
    public var column: Int
    public var row: Int

    public init(level: Int, column: Int, row: Int) {
        self.level = level
        self.column = column
        self.row = row
    }
}
