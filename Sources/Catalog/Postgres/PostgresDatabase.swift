import Foundation

/// A PostgreSQL catalog shared by many replicas: a small pool of libpq connections, transactions
/// with retries, reconnection with backoff, and migrations that run once however many replicas start.
///
/// Concurrency: up to `poolSize` transactions run at once, each on its own connection; more wait
/// for one (at most `acquireTimeout`). Writes are SERIALIZABLE, so code written for SQLite's single
/// writer (read, decide, insert: `FileIdentities`) stays correct when replicas write at once; a
/// transaction that loses a conflict runs again.
///
/// Failure: a connection the server dropped (a restart) is closed and replaced. While the server
/// cannot be reached, calls fail at once with `DatabaseUnavailable` (503 + Retry-After for HTTP)
/// instead of each waiting for a connect timeout; reconnecting is tried again after a backoff that
/// doubles from 0.25 s to 4 s. Nothing else in the server waits for the database (tiles never touch it).
public final class PostgresDatabase: SQLDatabase, @unchecked Sendable { // @unchecked: pool state is behind `condition`.
    public let dialect = SQLDialect.postgres
    /// The URL with any password replaced by `***`, for logs.
    public let displayURL: String
    public let poolSize: Int
    private let url: String
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var opened = 0
    private var retryAt = 0.0
    private var backoff = 0.0
    private var lastFailure: String?

    static let connectTimeoutSeconds = 3
    static let statementTimeoutMilliseconds = 15_000
    static let acquireTimeout = 10.0
    static let maximumBackoff = 4.0
    /// Runs of a transaction that keeps losing serialization conflicts before giving up.
    static let maximumAttempts = 20
    /// `pg_advisory_lock` key of the migrations: any constant that other software on the same database is unlikely to use.
    static let migrationLockKey: Int64 = 0x7469_6c65_7363_6f70  // "tilescop"

    /// Connects (trying for up to `startupSeconds` while the server starts) and applies the pending
    /// `migrations` under an advisory lock, so replicas starting together migrate once.
    public init(url: String, poolSize: Int = 4, migrations: [DatabaseMigration], startupSeconds: Double = 30) throws {
        self.url = url
        self.poolSize = max(1, poolSize)
        displayURL = Self.redacted(url)
        let deadline = Date().addingTimeInterval(startupSeconds)
        var connection: PostgresConnection?
        while connection == nil {
            do {
                connection = try Self.connect(url)
            } catch {
                guard Date() < deadline else { throw DatabaseUnavailable(retryAfterSeconds: 1, reason: "\(error.message) (\(displayURL))") }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        try Self.migrate(connection!, to: migrations)
        opened = 1
        idle = [connection!]
    }

    deinit {
        for connection in idle { connection.close() }
    }

    public func reading<T>(_ body: (any SQLStatements) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    public func writing<T>(_ body: (any SQLStatements) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL SERIALIZABLE", body)
    }

    /// Nil when a connection can be had and answers `SELECT 1`; otherwise why not (for `/readyz`).
    public func probe() -> String? {
        do {
            try reading { _ = try $0.query("SELECT 1") }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Closes every idle connection (those in use close when returned).
    public func close() {
        condition.lock()
        defer { condition.unlock() }
        for connection in idle { connection.close() }
        opened -= idle.count
        idle.removeAll()
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction; again on a fresh connection when the old one turned out to
    /// be dead before anything was committed, and again when it lost a serialization conflict.
    private func transaction<T>(begin: String, _ body: (any SQLStatements) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let connection = try acquire()
            let transaction = PostgresTransaction(connection: connection)
            var committing = false
            do {
                try connection.script(begin)
                let result = try body(transaction)
                transaction.end()
                committing = true
                try connection.script("COMMIT")
                release(connection)
                return result
            } catch {
                transaction.end()
                let failure = error as? PostgresError
                if failure?.connectionLost == true || connection.isHealthy == false {
                    discard(connection, because: failure?.message ?? "\(error)")
                    // A COMMIT whose answer was lost may or may not have landed: say so, never repeat it.
                    if committing || attempt >= 3 { throw unavailable(reason: failure?.message ?? "\(error)") }
                    continue
                }
                try? connection.script("ROLLBACK")
                release(connection)
                if failure?.isRetryable == true {
                    // A conflict lost this many times is contention, not a fault: the client may try again.
                    guard attempt < Self.maximumAttempts else {
                        throw DatabaseUnavailable(retryAfterSeconds: 1, reason: "a transaction lost \(attempt) serialization conflicts in a row")
                    }
                    // Full jitter over an exponential window, so writers that collided do not collide again in step.
                    Thread.sleep(forTimeInterval: Double.random(in: 0...min(0.05, 0.001 * Double(1 << min(attempt, 6)))))
                    continue
                }
                if let failure, failure.meansUnavailable { throw unavailable(reason: failure.message) }
                throw error
            }
        }
    }

    // MARK: - The pool

    private func acquire() throws -> PostgresConnection {
        condition.lock()
        let deadline = Date().addingTimeInterval(Self.acquireTimeout)
        while true {
            if let connection = idle.popLast() {
                condition.unlock()
                return connection
            }
            if opened < poolSize {
                let now = Date().timeIntervalSince1970
                if now < retryAt {
                    let wait = retryAt - now
                    condition.unlock()
                    throw DatabaseUnavailable(retryAfterSeconds: Int(wait.rounded(.up)),
                                              reason: lastFailure ?? "reconnecting")
                }
                opened += 1
                condition.unlock()
                do {
                    let connection = try Self.connect(url)
                    condition.lock()
                    backoff = 0
                    retryAt = 0
                    condition.unlock()
                    return connection
                } catch {
                    condition.lock()
                    opened -= 1
                    noteFailure(error.message)
                    condition.broadcast()
                    condition.unlock()
                    throw unavailable(reason: error.message)
                }
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw DatabaseUnavailable(retryAfterSeconds: 1, reason: "all \(poolSize) connections stayed busy for \(Int(Self.acquireTimeout)) s")
            }
        }
    }

    private func release(_ connection: PostgresConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    /// Drops a dead connection, and every idle one too: after a server restart they are all dead,
    /// though libpq only finds out when each is next used (which would fail one more request each).
    private func discard(_ connection: PostgresConnection, because reason: String) {
        connection.close()
        condition.lock()
        let stale = idle
        idle.removeAll()
        opened -= 1 + stale.count
        condition.broadcast()
        condition.unlock()
        for other in stale { other.close() }
    }

    /// Called with `condition` held: schedules the next connection attempt.
    private func noteFailure(_ reason: String) {
        backoff = min(Self.maximumBackoff, max(0.25, backoff * 2))
        retryAt = Date().timeIntervalSince1970 + backoff
        lastFailure = reason
    }

    private func unavailable(reason: String) -> DatabaseUnavailable {
        condition.lock()
        let wait = max(0, retryAt - Date().timeIntervalSince1970)
        condition.unlock()
        return DatabaseUnavailable(retryAfterSeconds: Int(wait.rounded(.up)), reason: reason)
    }

    private static func connect(_ url: String) throws(PostgresError) -> PostgresConnection {
        try PostgresConnection(url: url, timeoutSeconds: connectTimeoutSeconds,
                               statementTimeoutMilliseconds: statementTimeoutMilliseconds)
    }

    // MARK: - Migrations

    /// Applies the steps after the recorded version, each in its own transaction, while holding a
    /// session advisory lock: a replica starting at the same time waits, then finds nothing to do.
    static func migrate(_ connection: PostgresConnection, to migrations: [DatabaseMigration]) throws {
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw PostgresError(sqlState: nil, message: "migration \"\(migration.name)\" has version \(migration.version), expected \(offset + 1)")
        }
        _ = try connection.run("SELECT pg_advisory_lock(CAST(? AS bigint))", [.integer(migrationLockKey)])
        defer { _ = try? connection.run("SELECT pg_advisory_unlock(CAST(? AS bigint))", [.integer(migrationLockKey)]) }
        try connection.script("CREATE TABLE IF NOT EXISTS tilescope_schema (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        let rows = try connection.run("SELECT COALESCE(MAX(version), 0) AS version FROM tilescope_schema", []).rows
        let current = Int(rows.first?["version"].integer ?? 0)
        guard current <= migrations.count else {
            throw PostgresError(sqlState: nil, message: "the catalog's schema version is \(current), newer than this build knows (\(migrations.count)); refusing to use it")
        }
        for migration in migrations where migration.version > current {
            do {
                try connection.script("BEGIN")
                try connection.script(migration.sql)
                _ = try connection.run("INSERT INTO tilescope_schema (version, name) VALUES (?, ?)",
                                       [DatabaseValue(migration.version), .text(migration.name)])
                try connection.script("COMMIT")
            } catch {
                try? connection.script("ROLLBACK")
                throw PostgresError(sqlState: error.sqlState,
                                    message: "migration \(migration.version) (\(migration.name)) failed: \(error.message)", sql: error.sql)
            }
        }
    }

    /// `postgres://user:secret@host/db` -> `postgres://user:***@host/db`; key=value strings lose `password=...`.
    public static func redacted(_ url: String) -> String {
        if let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") {
            let credentials = url[scheme.upperBound..<at]
            if let colon = credentials.firstIndex(of: ":") {
                return String(url[..<colon]) + ":***" + String(url[at...])
            }
            return url
        }
        return url.replacingOccurrences(of: #"password\s*=\s*\S+"#, with: "password=***", options: .regularExpression)
    }
}
