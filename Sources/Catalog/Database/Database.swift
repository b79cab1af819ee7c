import CSQLite
import Foundation

/// A thread-safe SQLite database file: one connection in WAL mode, migrated at open, used in transactions.
///
/// Concurrency: one connection behind one lock. Every `read` and `write` holds the lock for its
/// whole transaction, so server threads queue rather than contend inside SQLite. The catalog's
/// statements are lookups on a small table, and its writes are ratings at human pace, so the
/// queue is short; the longest wait is a read behind a commit's fsync. Other processes (a second
/// server, the `sqlite3` shell) are handled by SQLite's file locks and the busy timeout. If reads
/// ever queue behind writes, a pool of read-only connections can be added here without changing
/// callers: WAL lets readers run beside one writer.
///
/// Do not call `read` or `write` from inside another `read` or `write` closure of the same
/// database: the lock is not reentrant. Use the transaction handed to the closure instead.
public final class Database: @unchecked Sendable { // @unchecked: all mutable state is behind `lock`.
    /// How long a statement waits for another process's lock before failing with SQLITE_BUSY.
    public static let busyTimeoutMilliseconds: Int32 = 5_000

    public let path: String
    private let lock = NSLock()
    private let connection: DatabaseConnection

    /// Opens the file at `path` (creating it, not its folder), switches it to WAL mode with
    /// `synchronous=FULL`, and applies the pending `migrations` in one transaction.
    ///
    /// `migrations` must be numbered 1, 2, 3... in order. A file whose schema is newer than the
    /// last migration (written by a newer build) is refused rather than used with a schema this
    /// code does not know.
    public init(path: String, migrations: [DatabaseMigration]) throws(DatabaseError) {
        self.path = path
        connection = try DatabaseConnection(path: path)
        do {
            try connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
            try configure()
            try migrate(to: migrations)
        } catch let error as DatabaseError {
            connection.close()
            throw error
        } catch {
            connection.close()
            throw DatabaseError(code: SQLITE_ERROR, message: "\(error)")
        }
    }

    deinit { connection.close() }

    /// Runs `body` in a read transaction (`BEGIN DEFERRED`): its queries see one consistent snapshot.
    @discardableResult
    public func read<T>(_ body: (DatabaseTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN DEFERRED", body)
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`, so it never fails half-way on
    /// upgrading a read lock); commits if `body` returns, rolls back if it throws. When `write`
    /// returns, the commit is on disk (fsynced, see `configure`).
    @discardableResult
    public func write<T>(_ body: (DatabaseTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// `PRAGMA user_version`: the number of the last migration applied.
    public func schemaVersion() throws -> Int {
        try read { try Self.userVersion($0) }
    }

    /// Closes the connection; later calls throw SQLITE_MISUSE. Also done when the object goes away.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        connection.close()
    }

    // MARK: - Opening

    /// WAL: readers never block the writer or each other, and a commit is one append to the log.
    ///
    /// `synchronous=FULL` rather than NORMAL: in WAL mode NORMAL fsyncs only at checkpoints, so a
    /// commit is in the OS page cache when `write` returns. That survives `kill -9` of the server
    /// (the kernel still writes the page cache out), but the last commits can be lost if the
    /// machine loses power or the OS crashes. FULL fsyncs the log on every commit, so an
    /// acknowledged rating survives those too. The price is one fsync per write transaction;
    /// ratings are written at human pace and reads pay nothing.
    private func configure() throws {
        let mode = try pragma("PRAGMA journal_mode=WAL")
        guard mode?.text?.lowercased() == "wal" else {
            throw DatabaseError(code: SQLITE_ERROR,
                                message: "could not switch to WAL mode (journal_mode is \(mode?.text ?? "unknown")): \(path)")
        }
        try pragma("PRAGMA synchronous=FULL")
        try pragma("PRAGMA foreign_keys=ON")
    }

    /// Applies the migrations after `user_version`, and sets `user_version`, in one transaction:
    /// either the whole upgrade lands or the file keeps its old schema.
    private func migrate(to migrations: [DatabaseMigration]) throws {
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw DatabaseError(code: SQLITE_MISUSE,
                                message: "migration \"\(migration.name)\" has version \(migration.version), expected \(offset + 1): migrations are numbered 1, 2, 3... in order")
        }
        let target = migrations.count
        // Fast path, no write lock: already current.
        if try read({ try Self.userVersion($0) }) == target { return }
        try write { transaction in
            // Read again under the write lock: another process may have migrated meanwhile.
            let current = try Self.userVersion(transaction)
            guard current <= target else {
                throw DatabaseError(code: SQLITE_ERROR,
                                    message: "the schema version of \(path) is \(current), newer than this build knows (\(target)); refusing to use it")
            }
            for migration in migrations where migration.version > current {
                do {
                    try connection.runScript(migration.sql)
                } catch let error as DatabaseError {
                    throw DatabaseError(code: error.code,
                                        message: "migration \(migration.version) (\(migration.name)) failed: \(error.message)",
                                        sql: error.sql)
                }
            }
            // PRAGMA takes no parameters; `target` is the count of our own list, never input.
            try transaction.execute("PRAGMA user_version = \(target)")
        }
    }

    // MARK: - Internals

    private func transaction<T>(begin: String, _ body: (DatabaseTransaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try connection.run(begin, [])
        let transaction = DatabaseTransaction(connection: connection)
        defer { transaction.end() }
        let result: T
        do {
            result = try body(transaction)
            try connection.run("COMMIT", [])
        } catch {
            // Rolls back the body's work, or a COMMIT that failed (SQLITE_BUSY, I/O error) and left the
            // transaction open. Its own failure would say nothing more than `error` does.
            try? connection.run("ROLLBACK", [])
            throw error
        }
        return result
    }

    /// Runs a PRAGMA outside any transaction (journal_mode cannot change inside one); returns its first value.
    @discardableResult
    private func pragma(_ sql: String) throws -> DatabaseValue? {
        lock.lock()
        defer { lock.unlock() }
        var first: DatabaseValue?
        try connection.run(sql, []) { row in
            if first == nil { first = row.values.first }
        }
        return first
    }

    private static func userVersion(_ transaction: DatabaseTransaction) throws -> Int {
        let rows = try transaction.query("PRAGMA user_version")
        return Int(rows.first?[0].integer ?? 0)
    }
}
