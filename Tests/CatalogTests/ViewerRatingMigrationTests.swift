import Foundation
import TestSupport
import Testing
@testable import Catalog

/// The step to ratings per viewer, on both engines: a catalog made by the schema before it, with single
/// ratings, opened by this one: each rating is now one anonymous rating (the legacy viewer's), and new
/// viewers' ratings add to it.
@Suite struct ViewerRatingMigrationTests {
    /// The single ratings the old catalog holds; "unrated" has none.
    static let old: [(id: String, rating: Int?)] = [("alpha", 7), ("beta", 0), ("gamma", 10), ("unrated", nil)]

    @Test func sqliteSingleRatingsBecomeOneAnonymousRatingEach() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/" + CatalogSchema.fileName
        do {
            // The shipped schema before ratings per viewer: the last step with `images.rating` in use.
            let before = Array(CatalogSchema.migrations.prefix { $0.version < 9 })
            let database = try Database(path: path, migrations: before)
            try Self.writeOldRatings(database)
        }
        let store = try SQLiteRatingStore(dataFolder: folder.path)
        try Self.checkMigrated(store)
        let keys = ViewerKeys(database: store.database)
        let before = try keys.all()
        #expect(before.count == 1)
        // The rotation docs/security.md gives operators, as written there.
        try store.database.write { transaction in
            try transaction.execute("""
                INSERT INTO viewer_keys (id, secret, created_ms)
                SELECT COALESCE(MAX(id), 0) + 1, lower(hex(randomblob(32))), CAST(strftime('%s') AS INTEGER) * 1000 FROM viewer_keys
                """)
        }
        let after = try keys.current()
        #expect(after.count == 2 && after[0].id == 2 && after[0].secret.count == 32 && Array(after.dropFirst()) == before)
    }

    @Test func postgresSingleRatingsBecomeOneAnonymousRatingEach() throws {
        let url = try PostgresCluster.freshDatabaseURL()
        do {
            let before = Array(PostgresSchema.migrations.prefix { $0.version < 8 })
            let database = try PostgresDatabase(url: url, migrations: before)
            try Self.writeOldRatings(database)
            database.close()
        }
        let database = try PostgresDatabase(url: url, migrations: PostgresSchema.migrations)
        defer { database.close() }
        try Self.checkMigrated(PostgresRatingStore(database: database))
        // The rotation docs/security.md gives operators, as written there.
        let keys = ViewerKeys(database: database)
        let before = try keys.all()
        try database.writing { transaction in
            try transaction.execute("""
                INSERT INTO viewer_keys (id, secret, created_ms)
                SELECT COALESCE(MAX(id), 0) + 1, encode(sha256(CAST(gen_random_uuid()::text || gen_random_uuid()::text AS bytea)), 'hex'),
                       CAST(extract(epoch from now()) * 1000 AS bigint) FROM viewer_keys
                """)
        }
        let after = try keys.current()
        #expect(after.count == 2 && after[0].id == 2 && after[0].secret.count == 32 && Array(after.dropFirst()) == before)
    }

    @Test func keysAreSharedRotatedAndNewestFirst() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRatingStore(dataFolder: folder.path)
        let keys = ViewerKeys(database: store.database)
        let first = try keys.all()
        #expect(first.count == 1 && first[0].id == 1 && first[0].secret.count == 32)
        #expect(try keys.all() == first)  // created once, then read
        let second = try keys.rotate()
        #expect(second.id == 2 && second.secret != first[0].secret)
        #expect(try keys.all() == [second, first[0]])
        #expect(!"\(second)".contains(second.secret.map { String($0) }.joined()))
    }

    // MARK: - Helpers

    static func writeOldRatings(_ database: any SQLDatabase) throws {
        try database.writing { transaction in
            for (id, rating) in old {
                try transaction.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, ?, ?)",
                                        .text(id), .integer(1_700_000_000_000), rating.map { .integer(Int64($0)) } ?? .null)
            }
        }
    }

    static func checkMigrated(_ store: any RatingStore) throws {
        let ids = old.map(\.id)
        let anonymous = try store.summaries(for: ids, viewer: .legacy)
        for (id, rating) in old {
            if let rating {
                #expect(anonymous[id] == RatingSummary(own: rating, total: rating, count: 1), "\(id)")
            } else {
                #expect(anonymous[id] == nil, "\(id)")
            }
        }
        // A viewer's own rating adds to the anonymous one; they see theirs, not the legacy viewer's.
        let viewer = ViewerID.random()
        #expect(try store.setRating(3, for: "alpha", by: viewer) == RatingSummary(own: 3, total: 10, count: 2))
        #expect(try store.summaries(for: ["alpha"], viewer: viewer)["alpha"]?.average == 5)
        #expect(try store.summaries(for: ["alpha"], viewer: nil)["alpha"]?.own == nil)
        try store.removeRating(for: "alpha", by: viewer)
        #expect(try store.summaries(for: ["alpha"], viewer: viewer)["alpha"] == RatingSummary(own: nil, total: 7, count: 1))
        try store.forget("gamma")
        #expect(try store.summaries(for: ["gamma"], viewer: .legacy).isEmpty)
    }
}
