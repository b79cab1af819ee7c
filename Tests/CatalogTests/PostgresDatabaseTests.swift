import Foundation
import Testing
import TestSupport
@testable import Catalog

/// What only the PostgreSQL engine has: migrations raced by replicas, reconnection, URLs in logs.
@Suite(.serialized) struct PostgresDatabaseTests {
    /// Eight replicas start at once on an empty database: the schema is created once, all of them work.
    @Test func replicasStartingTogetherMigrateOnce() throws {
        let url = try PostgresCluster.freshDatabaseURL()
        let opened = Locked<[PostgresDatabase]>([])
        let errors = Locked<[String]>([])
        onManyThreads(8) { _ in
            do {
                let database = try PostgresDatabase(url: url, migrations: PostgresSchema.migrations)
                opened.mutate { $0.append(database) }
            } catch {
                errors.mutate { $0.append("\(error)") }
            }
        }
        #expect(errors.value == [])
        #expect(opened.value.count == 8)
        let database = try #require(opened.value.first)
        let versions = try database.reading { try $0.query("SELECT version FROM tilescope_schema ORDER BY version") }
        #expect(versions.map { $0["version"].integer } == PostgresSchema.migrations.map { Int64($0.version) })
        // A later build that adds a step applies only that step.
        let more = PostgresSchema.migrations + [DatabaseMigration(version: PostgresSchema.migrations.count + 1, name: "notes",
                                                                   sql: "CREATE TABLE notes (body TEXT)")]
        let upgraded = try PostgresDatabase(url: url, migrations: more)
        #expect(try upgraded.reading { try $0.query("SELECT count(*) AS n FROM tilescope_schema")[0]["n"].integer } == Int64(more.count))
        // An older build refuses the newer schema rather than guess.
        #expect(throws: PostgresError.self) { try PostgresDatabase(url: url, migrations: PostgresSchema.migrations) }
    }

    /// The schema's CHECKs hold for writers that bypass the Swift validation.
    @Test func theSchemaRefusesBadRatingsFromAnyWriter() throws {
        let database = try PostgresDatabase(url: try PostgresCluster.freshDatabaseURL(), migrations: PostgresSchema.migrations)
        for bad: DatabaseValue in [.integer(11), .integer(-1), .text("seven")] {
            let error = try #require(throws: PostgresError.self) {
                try database.writing { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES ('x', 0, ?)", bad) }
            }
            #expect(error.sqlState == "23514" || error.sqlState == "22P02")  // check_violation, invalid text
        }
    }

    /// The server goes away: calls fail fast with `DatabaseUnavailable` (never hang, never crash);
    /// it comes back: the same object works again by itself, with nothing lost that was acknowledged.
    @Test func aRestartedServerIsUnavailableMeanwhileThenUsedAgain() throws {
        let cluster = try PostgresCluster.standalone()
        defer { cluster.stop() }
        let store = PostgresRatingStore(database: try PostgresDatabase(url: cluster.url(database: "postgres"),
                                                                       migrations: PostgresSchema.migrations))
        try store.setRating(5, for: "kept")
        try cluster.psql("SELECT 1")  // the server is up
        let stopped = Locked<Bool>(false)
        let restart = Thread {
            do { try cluster.restart(downSeconds: 3) } catch { stopped.mutate { $0 = true } }
        }
        restart.start()
        var unavailable = 0
        var answered = 0
        let deadline = Date().addingTimeInterval(60)
        // Until the server is back and answering again after having been seen down.
        while Date() < deadline {
            do {
                try store.setRating(answered % 11, for: "busy")
                answered += 1
                if unavailable > 0 { break }
            } catch let error as DatabaseUnavailable {
                unavailable += 1
                #expect(error.retryAfterSeconds >= 1)
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        #expect(stopped.value == false)
        #expect(unavailable > 0)
        #expect(try store.rating(for: "kept") == 5)
        #expect(try store.rating(for: "busy") != nil)
    }

    @Test func urlsInLogsHideThePassword() {
        #expect(PostgresDatabase.redacted("postgres://tile:s3cret@db:5432/tiles") == "postgres://tile:***@db:5432/tiles")
        #expect(PostgresDatabase.redacted("postgres://tile@db/tiles") == "postgres://tile@db/tiles")
        #expect(PostgresDatabase.redacted("host=db password=s3cret dbname=t") == "host=db password=*** dbname=t")
    }

    @Test func questionMarksBecomeNumberedParametersOutsideQuotes() {
        #expect(PostgresConnection.numberedParameters("SELECT ?, '?', \"a?\" FROM t WHERE x = ?") == "SELECT $1, '?', \"a?\" FROM t WHERE x = $2")
    }
}
