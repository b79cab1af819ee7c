/// A value bound to, or read from, an SQLite statement: SQLite's five storage classes.
public enum DatabaseValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The integer, when this is one (SQLite returns `INTEGER` columns as `.integer`).
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The string, when this is text.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

extension DatabaseValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension DatabaseValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: String) { self = .text(value) }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
}
