/// The statements of one PostgreSQL transaction, handed to the closure of `PostgresDatabase.reading`
/// or `writing` and valid only inside it.
public final class PostgresTransaction: SQLStatements {
    private let connection: PostgresConnection
    private var isActive = true

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    @discardableResult
    public func execute(_ sql: String, bindings: [DatabaseValue]) throws -> Int {
        try checkActive(sql)
        return try connection.run(sql, bindings).changed
    }

    public func query(_ sql: String, bindings: [DatabaseValue]) throws -> [DatabaseRow] {
        try checkActive(sql)
        return try connection.run(sql, bindings).rows
    }

    func end() { isActive = false }

    private func checkActive(_ sql: String) throws(PostgresError) {
        guard isActive else { throw PostgresError(sqlState: nil, message: "the transaction has already ended", sql: sql) }
    }
}

@available(*, unavailable, message: "a transaction belongs to the thread that borrowed its connection")
extension PostgresTransaction: Sendable {}
