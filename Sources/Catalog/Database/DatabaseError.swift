import CSQLite

/// A failure reported by SQLite, carrying its result code and its own message.
public struct DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_CHECK`, ...).
    public let code: Int32
    /// SQLite's message (`sqlite3_errmsg`), or ours for misuse that never reached SQLite.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code: `code & 0xff` (`SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_CHECK`).
    public var primaryCode: Int32 { code & 0xff }

    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        let statement = sql.map { " in `\($0)`" } ?? ""
        return "SQLite error \(code) (\(name)): \(message)\(statement)"
    }
}
