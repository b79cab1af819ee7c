/// The statements of one transaction, whichever engine runs them: `DatabaseTransaction` (SQLite)
/// or `PostgresTransaction`. Write constant SQL with `?` parameters; every value is a binding.
public protocol SQLStatements {
    /// Runs one statement; returns the rows it changed.
    @discardableResult
    func execute(_ sql: String, bindings: [DatabaseValue]) throws -> Int
    /// Runs one statement; returns all its rows.
    func query(_ sql: String, bindings: [DatabaseValue]) throws -> [DatabaseRow]
}

extension SQLStatements {
    @discardableResult
    public func execute(_ sql: String, _ bindings: DatabaseValue...) throws -> Int {
        try execute(sql, bindings: bindings)
    }

    public func query(_ sql: String, _ bindings: DatabaseValue...) throws -> [DatabaseRow] {
        try query(sql, bindings: bindings)
    }
}

/// A catalog database of either engine, for code written once for both (`FileIdentities`).
/// The few SQL spellings that differ come from `dialect`.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in a transaction that only reads.
    func reading<T>(_ body: (any SQLStatements) throws -> T) throws -> T
    /// Runs `body` in a transaction that writes: committed if it returns, rolled back if it throws.
    /// An engine may run `body` more than once (PostgreSQL retries a serialization failure), so
    /// `body` must have no effect outside the transaction.
    func writing<T>(_ body: (any SQLStatements) throws -> T) throws -> T
}

/// The SQL spellings that differ between SQLite and PostgreSQL.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// A row source of the strings in one JSON-array parameter, with one column `value`: one
    /// prepared statement for any number of ids, and no SQL built from them.
    public var jsonArrayValues: String {
        switch self {
        case .sqlite: "json_each(?)"
        case .postgres: "json_array_elements_text(CAST(? AS json)) AS list(value)"
        }
    }
}

extension DatabaseTransaction: SQLStatements {}

extension Database: SQLDatabase {
    public var dialect: SQLDialect { .sqlite }

    public func reading<T>(_ body: (any SQLStatements) throws -> T) throws -> T {
        try read { try body($0) }
    }

    public func writing<T>(_ body: (any SQLStatements) throws -> T) throws -> T {
        try write { try body($0) }
    }
}
