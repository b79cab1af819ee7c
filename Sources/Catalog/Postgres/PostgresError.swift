/// A failure reported by PostgreSQL (or libpq), with its SQLSTATE code when the server sent one.
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`40001` serialization failure, `23505` unique violation...), nil
    /// when libpq failed before the server answered (a lost connection).
    public let sqlState: String?
    /// PostgreSQL's or libpq's message.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    /// True when the connection itself is gone: the transaction did not commit and the
    /// connection must be replaced.
    public let connectionLost: Bool

    public init(sqlState: String?, message: String, sql: String? = nil, connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.connectionLost = connectionLost
    }

    /// A conflict with a concurrent transaction that running the transaction again resolves:
    /// serialization failure or deadlock.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The server is there but cannot take work now: shutting down, starting up, or a
    /// connection-class error (class 08).
    public var meansUnavailable: Bool {
        connectionLost || sqlState?.hasPrefix("08") == true || ["57P01", "57P02", "57P03"].contains(sqlState ?? "")
    }

    public var description: String {
        let code = sqlState.map { " \($0)" } ?? ""
        let statement = sql.map { " in `\($0)`" } ?? ""
        return "PostgreSQL error\(code): \(message)\(statement)"
    }
}
