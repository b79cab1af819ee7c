/// One result row: the values in column order, readable by index or by column name.
public struct DatabaseRow: Hashable, Sendable {
    public let columns: [String]
    public let values: [DatabaseValue]

    public init(columns: [String], values: [DatabaseValue]) {
        precondition(columns.count == values.count)
        self.columns = columns
        self.values = values
    }

    public subscript(index: Int) -> DatabaseValue { values[index] }

    /// `.null` for a column name the query did not select, so a typo reads as missing data, not a crash.
    public subscript(name: String) -> DatabaseValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }
}
