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
        DatabaseMigration(version: 2, name: "image_files: each file's id, kept for good", sql: """
            -- Which id each source file (by its name in the images folder) was given. Rows are never
            -- deleted, and a name once set never changes: an id belongs to one file for good (docs/ids.md).
            -- file_name is NULL for an id known from before this table existed: `legacy = 1` until the
            -- first scan adopts it for the file the old scheme gave it to; reserved for no file after.
            CREATE TABLE image_files (
                id TEXT NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                file_name TEXT UNIQUE CHECK (file_name IS NULL OR length(file_name) > 0),
                legacy INTEGER NOT NULL DEFAULT 0 CHECK (legacy IN (0, 1))
            ) WITHOUT ROWID;
            INSERT INTO image_files (id, file_name, legacy) SELECT id, NULL, 1 FROM images;
            """),
        DatabaseMigration(version: 3, name: "build failures by file version", sql: """
            -- The last failed build of each source file, with the fingerprint of the version that
            -- failed: an unchanged file is not rebuilt at every start, a changed one is.
            CREATE TABLE build_failures (
                file_name TEXT NOT NULL PRIMARY KEY CHECK (length(file_name) > 0),
                version TEXT NOT NULL CHECK (length(version) > 0),
                reason TEXT NOT NULL,
                failed_ms INTEGER NOT NULL  -- milliseconds since 1970-01-01 UTC
            ) WITHOUT ROWID;
            """),
        DatabaseMigration(version: 4, name: "library_images: the library remembered between runs", sql: """
            -- Each image's file, last seen version and, once built, its pyramid's geometry: a restart
            -- serves from here at once and rescans the folder in the background (docs/gallery-scale.md).
            CREATE TABLE library_images (
                id TEXT NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                file_name TEXT NOT NULL CHECK (length(file_name) > 0),
                size INTEGER NOT NULL,
                modified_ns INTEGER NOT NULL,
                version TEXT NOT NULL,
                width INTEGER NOT NULL,
                height INTEGER NOT NULL,
                tile_size INTEGER,  -- NULL until this version's pyramid is published
                overlap INTEGER
            ) WITHOUT ROWID;
            """),
        DatabaseMigration(version: 5, name: "library_images.alpha: pyramids with the PNG tiles of a transparent source", sql: """
            ALTER TABLE library_images ADD COLUMN alpha INTEGER;  -- 1 when they are there, else NULL
            """),
        DatabaseMigration(version: 6, name: "library_images.direct: sources served from their own levels, not built", sql: """
            ALTER TABLE library_images ADD COLUMN direct INTEGER;  -- 1 for a source served directly, else NULL
            """),
        DatabaseMigration(version: 7, name: "library_images.mpp_x, mpp_y: the physical size of a pixel, when the source says", sql: """
            ALTER TABLE library_images ADD COLUMN mpp_x REAL;  -- microns per pixel across, else NULL
            ALTER TABLE library_images ADD COLUMN mpp_y REAL;
            """),
        DatabaseMigration(version: 8, name: "library_images.associated: a slide's associated images, published", sql: """
            ALTER TABLE library_images ADD COLUMN associated TEXT;  -- label:300x200;macro:800x300, else NULL
            """),
        DatabaseMigration(version: 9, name: "viewer_ratings and viewer_keys: a rating per viewer, signed viewer cookies", sql: """
            -- Each viewer's own rating of each image (docs/api.md#ratings). `viewer` is the 128-bit id of the
            -- viewer's signed cookie in lowercase hex; the single rating each image had so far becomes one
            -- anonymous rating by the legacy viewer (all zeros, an id no cookie is ever issued for).
            -- images.rating stays (a shipped column) but is no longer read or written.
            CREATE TABLE viewer_ratings (
                image_id TEXT NOT NULL CHECK (length(image_id) > 0),
                viewer TEXT NOT NULL CHECK (length(viewer) = 32),
                rating INTEGER NOT NULL CHECK (typeof(rating) = 'integer' AND rating BETWEEN 0 AND 10),
                rated_ms INTEGER NOT NULL,  -- milliseconds since 1970-01-01 UTC
                PRIMARY KEY (image_id, viewer)
            ) WITHOUT ROWID;
            INSERT INTO viewer_ratings (image_id, viewer, rating, rated_ms)
                SELECT id, '00000000000000000000000000000000', rating, added_ms FROM images WHERE rating IS NOT NULL;
            -- The keys viewer cookies are signed with: every replica of a catalog finds the same ones here.
            -- The newest (highest id) signs; all verify, so a new key (rotation) keeps old cookies valid.
            CREATE TABLE viewer_keys (
                id INTEGER NOT NULL PRIMARY KEY CHECK (id > 0),
                secret TEXT NOT NULL CHECK (length(secret) = 64),  -- 32 random bytes in hex
                created_ms INTEGER NOT NULL
            );
            """),
        DatabaseMigration(version: 10, name: "user_sessions: signed-in users' sessions, shared by replicas", sql: """
            -- A session per sign-in (docs/access.md#users-and-sessions). id_hash is the SHA-256 of the cookie's
            -- secret in hex (the secret itself is never stored); csrf the token bound to the session.
            CREATE TABLE user_sessions (
                id_hash TEXT NOT NULL PRIMARY KEY CHECK (length(id_hash) = 64),
                user_name TEXT NOT NULL CHECK (length(user_name) BETWEEN 1 AND 64),
                csrf TEXT NOT NULL CHECK (length(csrf) = 64),
                created_s INTEGER NOT NULL,  -- Unix time, seconds
                expires_s INTEGER NOT NULL
            );
            CREATE INDEX user_sessions_user ON user_sessions (user_name);
            """),
    ]
}
