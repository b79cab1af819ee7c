import CSQLite

/// The statements of one transaction, handed to the closure of `Database.read` or `Database.write`
/// and valid only inside it (using it afterwards throws SQLITE_MISUSE).
///
/// Each call runs exactly one statement, prepared once and cached by its text: write constant SQL
/// with `?` parameters and pass every value as a binding, never in the text.
public final class DatabaseTransaction {
    private let connection: DatabaseConnection
    private(set) var isActive = true

    init(connection: DatabaseConnection) {
        self.connection = connection
    }

    /// Runs one statement with `bindings` bound to its `?` parameters in order; returns the rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ bindings: DatabaseValue...) throws -> Int {
        try execute(sql, bindings: bindings)
    }

    @discardableResult
    public func execute(_ sql: String, bindings: [DatabaseValue]) throws -> Int {
        try checkActive(sql)
        try connection.run(sql, bindings)
        return connection.changes()
    }

    /// Runs one statement with `bindings` bound to its `?` parameters in order; returns all its rows.
    public func query(_ sql: String, _ bindings: DatabaseValue...) throws -> [DatabaseRow] {
        try query(sql, bindings: bindings)
    }

    public func query(_ sql: String, bindings: [DatabaseValue]) throws -> [DatabaseRow] {
        try checkActive(sql)
        var rows: [DatabaseRow] = []
        try connection.run(sql, bindings) { rows.append($0) }
        return rows
    }

    func end() { isActive = false }

    private func checkActive(_ sql: String) throws(DatabaseError) {
        guard isActive else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "the transaction has already ended", sql: sql)
        }
    }
}

@available(*, unavailable, message: "a transaction belongs to the thread that holds the database lock")
extension DatabaseTransaction: Sendable {}
