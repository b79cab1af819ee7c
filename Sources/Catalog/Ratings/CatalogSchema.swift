/// The migrations of `catalog.sqlite`, oldest first. Append new steps; never edit shipped ones.
public enum CatalogSchema {
    /// The file's name inside the data folder.
    public static let fileName = "catalog.sqlite"

    public static let migrations: [DatabaseMigration] = [
        DatabaseMigration(version: 1, name: "images: added date and rating", sql: """
            -- One row per image id ever seen. The rating is nullable (unrated); the CHECKs repeat
            -- the Swift validation so that no other writer (the sqlite3 shell) can store nonsense.
            CREATE TABLE images (
                id TEXT NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                added_ms INTEGER NOT NULL,  -- first seen, milliseconds since 1970-01-01 UTC
                rating INTEGER CHECK (rating IS NULL OR (typeof(rating) = 'integer' AND rating BETWEEN 0 AND 10))
            ) WITHOUT ROWID;
            """),
        DatabaseMigration(version: 2, name: "build failures by file version", sql: """
            -- The last failed build of each source file, with the fingerprint of the version that
            -- failed: an unchanged file is not rebuilt at every start, a changed one is.
            CREATE TABLE build_failures (
                file_name TEXT NOT NULL PRIMARY KEY CHECK (length(file_name) > 0),
                version TEXT NOT NULL CHECK (length(version) > 0),
                reason TEXT NOT NULL,
                failed_ms INTEGER NOT NULL  -- milliseconds since 1970-01-01 UTC
            ) WITHOUT ROWID;
            """),
    ]
}
