import CSQLite
import Foundation
import Testing
@testable import Catalog

@Suite struct DatabaseTests {
    static let notes = DatabaseMigration(version: 1, name: "notes", sql: """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE);
        CREATE INDEX notes_body ON notes (body);
        """)
    static let tags = DatabaseMigration(version: 2, name: "tags", sql: "ALTER TABLE notes ADD COLUMN tag TEXT;")

    @Test func migratesAnEmptyFileAndReopensWithoutReapplying() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.sqlite")
        let first = try Database(path: path, migrations: [Self.notes])
        #expect(try first.schemaVersion() == 1)
        try first.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "kept") }
        first.close()

        // Re-applying migration 1 would fail (the table exists): reopening must skip it.
        let second = try Database(path: path, migrations: [Self.notes])
        #expect(try second.schemaVersion() == 1)
        #expect(try second.read { try $0.query("SELECT body FROM notes") }.map { $0["body"] } == ["kept"])
        second.close()

        // A newer build appends migration 2: only it runs, and the data stays.
        let third = try Database(path: path, migrations: [Self.notes, Self.tags])
        #expect(try third.schemaVersion() == 2)
        try third.write { try $0.execute("UPDATE notes SET tag = ? WHERE body = ?", "t", "kept") }
        let rows = try third.read { try $0.query("SELECT body, tag FROM notes") }
        #expect(rows.map { [$0["body"], $0["tag"]] } == [["kept", "t"]])
        third.close()

        let fourth = try Database(path: path, migrations: [Self.notes, Self.tags])
        #expect(try fourth.schemaVersion() == 2)
    }

    @Test func opensInWALModeWithFullSynchronousAndABusyTimeout() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.file("a.sqlite"), migrations: [])
        let (mode, synchronous, timeout) = try database.read {
            (try $0.query("PRAGMA journal_mode")[0][0], try $0.query("PRAGMA synchronous")[0][0],
             try $0.query("PRAGMA busy_timeout")[0][0])
        }
        #expect(mode == "wal")
        #expect(synchronous == .integer(2)) // 2 = FULL
        #expect(timeout == .integer(Int64(Database.busyTimeoutMilliseconds)))
        #expect(FileManager.default.fileExists(atPath: folder.file("a.sqlite-wal")))
    }

    @Test func refusesASchemaNewerThanItsMigrations() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.sqlite")
        try Database(path: path, migrations: [Self.notes, Self.tags]).close()
        let error = try #require(throws: DatabaseError.self) { try Database(path: path, migrations: [Self.notes]) }
        #expect(error.message.contains("schema version"))
        #expect(error.message.contains("is 2, newer than this build knows (1)"))
    }

    @Test func aFailingMigrationLeavesTheFileAsItWas() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.sqlite")
        let broken = DatabaseMigration(version: 2, name: "broken", sql: "CREATE TABLE later (x); CREATE TABLE oops (;")
        let error = try #require(throws: DatabaseError.self) { try Database(path: path, migrations: [Self.notes, broken]) }
        #expect(error.message.contains("migration 2 (broken) failed"))
        #expect(error.message.contains("syntax error"))

        // Neither migration 1 nor the first half of 2 landed: one transaction.
        let database = try Database(path: path, migrations: [])
        #expect(try database.schemaVersion() == 0)
        let tables = try database.read { try $0.query("SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(tables.isEmpty)
    }

    @Test func refusesMisnumberedMigrations() throws {
        let folder = try TemporaryFolder()
        let error = try #require(throws: DatabaseError.self) {
            try Database(path: folder.file("a.sqlite"), migrations: [Self.tags])
        }
        #expect(error.code == SQLITE_MISUSE)
        #expect(error.message.contains("expected 1"))
    }

    @Test func cannotOpenAFileInAMissingFolder() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("missing/a.sqlite")
        let error = try #require(throws: DatabaseError.self) { try Database(path: path, migrations: []) }
        #expect(error.primaryCode == SQLITE_CANTOPEN)
        #expect(error.message.contains(path))
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let folder = try TemporaryFolder()
        try folder.write("a.sqlite", String(repeating: "not a database ", count: 100))
        let error = try #require(throws: DatabaseError.self) { try Database(path: folder.file("a.sqlite"), migrations: []) }
        #expect(error.primaryCode == SQLITE_NOTADB)
        #expect(error.message == "file is not a database")
    }

    /// More distinct statements than the cache holds: old ones are finalized and prepared again.
    @Test func manyDistinctStatementsKeepWorking() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.file("a.sqlite"), migrations: [Self.notes])
        for round in 0..<2 {
            for index in 0..<300 {
                let rows = try database.read { try $0.query("SELECT \(index) + ?", .integer(Int64(round))) }
                #expect(rows.first?[0] == .integer(Int64(index + round)))
            }
        }
    }

    @Test func boundValuesRoundTripAndAreNeverSQL() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.file("a.sqlite"), migrations: [])
        try database.write { try $0.execute("CREATE TABLE t (v)") }
        let values: [DatabaseValue] = [
            .null, .integer(Int64.max), .integer(Int64.min), .real(-0.5), .text(""), .text("x'); DROP TABLE t; --"),
            .text("nul\u{0}inside"), .text("Émeu 🐯"), .blob([]), .blob([0, 255, 0, 1]),
        ]
        for value in values {
            try database.write { try $0.execute("INSERT INTO t (v) VALUES (?)", value) }
        }
        let rows = try database.read { try $0.query("SELECT v FROM t ORDER BY rowid") }
        #expect(rows.map { $0[0] } == values)
        #expect(rows.first?.columns == ["v"])
    }

    @Test func errorsCarrySQLitesMessageAndTheStatement() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.file("a.sqlite"), migrations: [Self.notes])

        let syntax = try #require(throws: DatabaseError.self) { try database.read { try $0.query("SELEKT 1") } }
        #expect(syntax.message.contains("syntax error"))
        #expect(syntax.sql == "SELEKT 1")
        #expect(syntax.description.contains("SELEKT 1"))

        try database.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "once") }
        let unique = try #require(throws: DatabaseError.self) {
            try database.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "once") }
        }
        #expect(unique.primaryCode == SQLITE_CONSTRAINT)
        #expect(unique.code == SQLITE_CONSTRAINT | (8 << 8)) // SQLITE_CONSTRAINT_UNIQUE, a macro Swift does not import
        #expect(unique.message.contains("UNIQUE constraint failed: notes.body"))

        let count = try #require(throws: DatabaseError.self) {
            try database.write { try $0.execute("INSERT INTO notes (body) VALUES (?)") }
        }
        #expect(count.code == SQLITE_RANGE)

        let two = try #require(throws: DatabaseError.self) {
            try database.write { try $0.execute("DELETE FROM notes; DROP TABLE notes") }
        }
        #expect(two.code == SQLITE_MISUSE)
        #expect(try database.read { try $0.query("SELECT count(*) FROM notes")[0][0] } == .integer(1))

        database.close()
        let closed = try #require(throws: DatabaseError.self) { try database.read { try $0.query("SELECT 1") } }
        #expect(closed.code == SQLITE_MISUSE)
        #expect(closed.message.contains("closed"))
    }

    @Test func aThrowingWriteRollsBack() throws {
        struct Abort: Error {}
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.file("a.sqlite"), migrations: [Self.notes])
        #expect(throws: Abort.self) {
            try database.write { transaction in
                try transaction.execute("INSERT INTO notes (body) VALUES (?)", "lost")
                throw Abort()
            }
        }
        #expect(try database.read { try $0.query("SELECT * FROM notes") }.isEmpty)
        // The connection is usable again: the transaction did end.
        #expect(try database.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "kept") } == 1)
    }

    @Test func aTransactionCannotBeUsedAfterItEnds() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.file("a.sqlite"), migrations: [Self.notes])
        let escaped = try database.read { $0 }
        let error = try #require(throws: DatabaseError.self) { try escaped.query("SELECT 1") }
        #expect(error.code == SQLITE_MISUSE)
    }

    /// Short of killing the process (see DurabilityTests): a commit is visible to another
    /// connection while the writer stays open and never checkpoints or closes.
    @Test func aCommitIsVisibleToASecondConnectionWithoutClosingTheFirst() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.sqlite")
        let writer = try Database(path: path, migrations: [Self.notes])
        try writer.write { try $0.execute("INSERT INTO notes (body) VALUES (?)", "committed") }
        let reader = try Database(path: path, migrations: [Self.notes])
        #expect(try reader.read { try $0.query("SELECT body FROM notes") }.map { $0[0] } == ["committed"])
        withExtendedLifetime(writer) {}
    }

    /// Two connections on one file (as two processes would be) writing from many threads at once:
    /// the busy timeout and BEGIN IMMEDIATE turn contention into waiting, never SQLITE_BUSY.
    @Test func twoConnectionsWritingConcurrentlyWaitInsteadOfFailing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.sqlite")
        let databases = [try Database(path: path, migrations: [Self.notes]), try Database(path: path, migrations: [Self.notes])]
        let errors = Locked<[String]>([])
        onManyThreads(100) { index in
            do {
                try databases[index % 2].write { try $0.execute("INSERT INTO notes (body) VALUES (?)", .text("n\(index)")) }
            } catch {
                errors.mutate { $0.append("\(error)") }
            }
        }
        #expect(errors.value == [])
        let count = try databases[0].read { try $0.query("SELECT count(*) FROM notes")[0][0] }
        #expect(count == .integer(100))
    }
}
