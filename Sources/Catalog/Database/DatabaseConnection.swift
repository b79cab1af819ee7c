import CSQLite

/// One open SQLite connection and its prepared-statement cache; not thread-safe: `Database` serializes all use.
final class DatabaseConnection {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let path: String

    /// SQLITE_TRANSIENT is a C macro Swift cannot import: it makes SQLite copy bound text and blobs
    /// before the call returns, so Swift's temporary buffers may go away.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// Opens (creating it if needed) the file at `path`.
    ///
    /// `SQLITE_OPEN_NOMUTEX`: SQLite's own per-connection mutex would only repeat the lock
    /// `Database` already holds around every use of this connection.
    init(path: String) throws(DatabaseError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw DatabaseError(code: rc, message: "\(message): \(path)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    func setBusyTimeout(milliseconds: Int32) throws(DatabaseError) {
        let db = try open()
        let rc = sqlite3_busy_timeout(db, milliseconds)
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
    }

    /// Runs one statement with its parameters bound, calling `onRow` for each result row.
    func run(_ sql: String, _ bindings: [DatabaseValue], onRow: (DatabaseRow) throws -> Void = { _ in }) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == bindings.count else {
            throw DatabaseError(code: SQLITE_RANGE,
                                message: "the statement has \(expected) parameters, \(bindings.count) values were given",
                                sql: sql)
        }
        for (offset, value) in bindings.enumerated() {
            try bind(value, at: Int32(offset + 1), to: statement, sql: sql)
        }
        while true {
            let rc = sqlite3_step(statement)
            switch rc {
            case SQLITE_ROW: try onRow(row(of: statement))
            case SQLITE_DONE: return
            default: throw error(rc, sql: sql)
            }
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    func changes() -> Int {
        handle.map { Int(sqlite3_changes($0)) } ?? 0
    }

    /// Runs a script of several statements without parameters: for migrations, whose text is constant.
    func runScript(_ sql: String) throws(DatabaseError) {
        let db = try open()
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            throw DatabaseError(code: sqlite3_extended_errcode(db), message: text, sql: sql)
        }
    }

    // MARK: - Internals

    private func open() throws(DatabaseError) -> OpaquePointer {
        guard let handle else { throw DatabaseError(code: SQLITE_MISUSE, message: "the database is closed: \(path)") }
        return handle
    }

    private func error(_ rc: Int32, sql: String?) -> DatabaseError {
        guard let handle else { return DatabaseError(code: rc, message: String(cString: sqlite3_errstr(rc)), sql: sql) }
        return DatabaseError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Callers pass constant SQL with `?` parameters, so the cache stays small; the bound only
    /// guards against SQL text built at run time growing it without end.
    private static let cacheLimit = 128

    /// The cached statement for `sql`, prepared once with SQLITE_PREPARE_PERSISTENT.
    /// Exactly one statement per call: trailing text would otherwise be silently ignored.
    private func prepared(_ sql: String) throws(DatabaseError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        let db = try open()
        if statements.count >= Self.cacheLimit {
            // No statement is mid-step here: `run` prepares before it steps, and never nests.
            for statement in statements.values { sqlite3_finalize(statement) }
            statements.removeAll()
        }
        var statement: OpaquePointer?
        var trailing = ""
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if let tail { trailing = String(cString: tail) }
            return rc
        }
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
        guard let statement else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "no statement in the SQL text", sql: sql)
        }
        guard trailing.allSatisfy(\.isWhitespace) else {
            sqlite3_finalize(statement)
            throw DatabaseError(code: SQLITE_MISUSE, message: "more than one statement in one call", sql: sql)
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: DatabaseValue, at index: Int32, to statement: OpaquePointer, sql: String) throws(DatabaseError) {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(statement, index)
        case .integer(let number):
            rc = sqlite3_bind_int64(statement, index, number)
        case .real(let number):
            rc = sqlite3_bind_double(statement, index, number)
        case .text(let string):
            // An explicit byte length keeps text with embedded NULs whole.
            rc = string.withCString { sqlite3_bind_text(statement, index, $0, Int32(string.utf8.count), Self.transient) }
        case .blob(let bytes):
            rc = bytes.isEmpty
                ? sqlite3_bind_zeroblob(statement, index, 0) // a nil pointer would bind NULL, not an empty blob
                : bytes.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
        }
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
    }

    private func row(of statement: OpaquePointer) -> DatabaseRow {
        let count = sqlite3_column_count(statement)
        var columns: [String] = []
        var values: [DatabaseValue] = []
        columns.reserveCapacity(Int(count))
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            columns.append(sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "")
            values.append(value(of: statement, column: column))
        }
        return DatabaseRow(columns: columns, values: values)
    }

    private func value(of statement: OpaquePointer, column: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            // Pointer first, then byte count, as SQLite documents: the text conversion may change the count.
            let pointer = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let pointer = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer, count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            return .null
        }
    }
}
