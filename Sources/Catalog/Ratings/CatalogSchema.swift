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
    ]
}
