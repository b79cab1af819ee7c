import CLibPQ
import Foundation

/// One libpq connection and its prepared statements; not thread-safe: `PostgresDatabase` lends it
/// to one thread at a time.
///
/// Statements are written with SQLite's `?` parameters (so code shared by both engines reads
/// the same) and rewritten to `$1, $2...` once, when prepared. Values travel as text and come back as
/// text, converted by the column's type: integers to `.integer`, floats to `.real`, the rest to `.text`.
final class PostgresConnection {
    private var handle: OpaquePointer?
    /// SQL text -> prepared statement name on this connection.
    private var statements: [String: String] = [:]

    /// Connects to `url` (a `postgres://` URL or a libpq key=value string), waiting at most
    /// `timeoutSeconds`. `statement_timeout` bounds every statement, so a stuck lock never holds a
    /// server thread for good.
    init(url: String, timeoutSeconds: Int, statementTimeoutMilliseconds: Int) throws(PostgresError) {
        let keywords = ["dbname", "connect_timeout", "application_name", "options"]
        let values = [url, String(timeoutSeconds), "tilescope", "-c statement_timeout=\(statementTimeoutMilliseconds)"]
        let connection = Self.withCStrings(keywords) { keys in
            Self.withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.trimmed(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message: "cannot connect: \(message)", connectionLost: true)
        }
        handle = connection
    }

    deinit { close() }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// False once the server has gone away under this connection.
    var isHealthy: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs one statement with `bindings` for its `?` parameters; returns its rows and the count of rows it changed.
    func run(_ sql: String, _ bindings: [DatabaseValue]) throws(PostgresError) -> (rows: [DatabaseRow], changed: Int) {
        let connection = try open(sql)
        let name = try prepared(sql, connection)
        var texts: [String?] = []
        texts.reserveCapacity(bindings.count)
        for value in bindings { texts.append(try Self.text(of: value, sql: sql)) }
        let result = Self.withOptionalCStrings(texts) { pointers in
            PQexecPrepared(connection, name, Int32(pointers.count), pointers, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result, sql: sql)
        return (Self.rows(of: result), Int(String(cString: PQcmdTuples(result))) ?? 0)
    }

    /// Runs constant SQL without parameters and without preparing it: transaction control and
    /// migrations, which may hold several statements.
    func script(_ sql: String) throws(PostgresError) {
        let connection = try open(sql)
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    // MARK: - Internals

    private func open(_ sql: String) throws(PostgresError) -> OpaquePointer {
        guard let handle else {
            throw PostgresError(sqlState: nil, message: "the connection is closed", sql: sql, connectionLost: true)
        }
        return handle
    }

    private func prepared(_ sql: String, _ connection: OpaquePointer) throws(PostgresError) -> String {
        if let name = statements[sql] { return name }
        let name = "tilescope_\(statements.count + 1)"
        let result = PQprepare(connection, name, Self.numberedParameters(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        statements[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) {
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK else { return }
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let message = result.map { Self.trimmed(PQresultErrorMessage($0)) } ?? ""
        let lost = !isHealthy
        throw PostgresError(sqlState: state,
                            message: message.isEmpty ? Self.trimmed(handle.map { PQerrorMessage($0) } ?? nil) : message,
                            sql: sql, connectionLost: lost)
    }

    /// `?` -> `$1, $2...`, outside quoted text and identifiers.
    static func numberedParameters(_ sql: String) -> String {
        var output = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                output.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                output.append(character)
            } else if character == "?" {
                number += 1
                output += "$\(number)"
            } else {
                output.append(character)
            }
        }
        return output
    }

    private static func text(of value: DatabaseValue, sql: String) throws(PostgresError) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let string): return string
        case .blob:
            throw PostgresError(sqlState: nil, message: "blobs are not bound to PostgreSQL statements", sql: sql)
        }
    }

    /// OIDs of PostgreSQL's built-in integer and float types.
    private static let integerTypes: Set<Oid> = [20, 21, 23]   // int8, int2, int4
    private static let realTypes: Set<Oid> = [700, 701]        // float4, float8

    private static func rows(of result: OpaquePointer?) -> [DatabaseRow] {
        guard let result else { return [] }
        let count = PQntuples(result)
        let fields = PQnfields(result)
        guard count > 0 else { return [] }
        let columns = (0..<fields).map { String(cString: PQfname(result, $0)) }
        let types = (0..<fields).map { PQftype(result, $0) }
        return (0..<count).map { row in
            let values = (0..<fields).map { field -> DatabaseValue in
                guard PQgetisnull(result, row, field) == 0 else { return .null }
                let text = String(cString: PQgetvalue(result, row, field))
                let type = types[Int(field)]
                if integerTypes.contains(type), let number = Int64(text) { return .integer(number) }
                if realTypes.contains(type), let number = Double(text) { return .real(number) }
                return .text(text)
            }
            return DatabaseRow(columns: columns, values: values)
        }
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    /// NUL-terminated copies of `strings`, with a NULL at the end, alive during `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        withOptionalCStrings(strings + [nil], body)
    }

    private static func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { $0.map { strdup($0)! } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
