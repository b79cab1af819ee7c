/// The catalog's tables in PostgreSQL, oldest step first: the same data as `CatalogSchema`
/// (SQLite), plus the build jobs that replicas share. Append new steps; never edit shipped ones.
public enum PostgresSchema {
    public static let migrations: [DatabaseMigration] = [
        DatabaseMigration(version: 1, name: "images, image files, build failures", sql: """
            CREATE TABLE images (
                id TEXT NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                added_ms BIGINT NOT NULL,  -- first seen, milliseconds since 1970-01-01 UTC
                rating SMALLINT CHECK (rating IS NULL OR rating BETWEEN 0 AND 10)
            );
            -- Which id each source file was given, for good (docs/ids.md). `legacy` exists for the
            -- shared identity code; PostgreSQL catalogs never had ids without files.
            CREATE TABLE image_files (
                id TEXT NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                file_name TEXT UNIQUE CHECK (file_name IS NULL OR length(file_name) > 0),
                legacy SMALLINT NOT NULL DEFAULT 0 CHECK (legacy IN (0, 1))
            );
            CREATE TABLE build_failures (
                file_name TEXT NOT NULL PRIMARY KEY CHECK (length(file_name) > 0),
                version TEXT NOT NULL CHECK (length(version) > 0),
                reason TEXT NOT NULL,
                failed_ms BIGINT NOT NULL
            );
            """),
        DatabaseMigration(version: 2, name: "build jobs with leases", sql: """
            -- One row per pyramid (image id and source version) any replica set out to build. A replica
            -- builds only while it holds the lease (holder, lease_until); a lease not renewed in time
            -- (the replica died) can be taken over. `published` rows are never built again.
            CREATE TABLE build_jobs (
                image_id TEXT NOT NULL CHECK (length(image_id) > 0),
                version TEXT NOT NULL CHECK (length(version) > 0),
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'published')),
                holder TEXT,
                lease_until TIMESTAMPTZ,
                attempts INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (image_id, version)
            );
            """),
        DatabaseMigration(version: 3, name: "library_images: the library remembered between runs", sql: """
            -- As SQLite's (CatalogSchema, version 4). Ids compare byte by byte, as they do in SQLite and
            -- in Swift, so the batches of a restore (WHERE id > ? ORDER BY id) follow the same order.
            CREATE TABLE library_images (
                id TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                file_name TEXT NOT NULL CHECK (length(file_name) > 0),
                size BIGINT NOT NULL,
                modified_ns BIGINT NOT NULL,
                version TEXT NOT NULL,
                width BIGINT NOT NULL,
                height BIGINT NOT NULL,
                tile_size BIGINT,  -- NULL until this version's pyramid is published
                overlap BIGINT
            );
            """),
        DatabaseMigration(version: 4, name: "library_images.alpha: pyramids with the PNG tiles of a transparent source", sql: """
            ALTER TABLE library_images ADD COLUMN alpha BIGINT;  -- 1 when they are there, else NULL (CatalogSchema, version 5)
            """),
        DatabaseMigration(version: 5, name: "library_images.direct: sources served from their own levels, not built", sql: """
            ALTER TABLE library_images ADD COLUMN direct BIGINT;  -- 1 for a source served directly, else NULL (CatalogSchema, version 6)
            """),
        DatabaseMigration(version: 6, name: "library_images.mpp_x, mpp_y: the physical size of a pixel, when the source says", sql: """
            ALTER TABLE library_images ADD COLUMN mpp_x DOUBLE PRECISION;  -- microns per pixel across, else NULL (CatalogSchema, version 7)
            ALTER TABLE library_images ADD COLUMN mpp_y DOUBLE PRECISION;
            """),
        DatabaseMigration(version: 7, name: "library_images.associated: a slide's associated images, published", sql: """
            ALTER TABLE library_images ADD COLUMN associated TEXT;  -- label:300x200;macro:800x300, else NULL (CatalogSchema, version 8)
            """),
        DatabaseMigration(version: 8, name: "viewer_ratings and viewer_keys: a rating per viewer, signed viewer cookies", sql: """
            -- As SQLite's (CatalogSchema, version 9): each viewer's own rating, the single ratings so far
            -- as the legacy viewer's (all zeros), and the keys that sign viewer cookies for every replica.
            CREATE TABLE viewer_ratings (
                image_id TEXT NOT NULL CHECK (length(image_id) > 0),
                viewer TEXT NOT NULL CHECK (length(viewer) = 32),
                rating SMALLINT NOT NULL CHECK (rating BETWEEN 0 AND 10),
                rated_ms BIGINT NOT NULL,
                PRIMARY KEY (image_id, viewer)
            );
            INSERT INTO viewer_ratings (image_id, viewer, rating, rated_ms)
                SELECT id, '00000000000000000000000000000000', rating, added_ms FROM images WHERE rating IS NOT NULL;
            CREATE TABLE viewer_keys (
                id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
                secret TEXT NOT NULL CHECK (length(secret) = 64),
                created_ms BIGINT NOT NULL
            );
            """),
        DatabaseMigration(version: 9, name: "user_sessions: signed-in users' sessions, shared by replicas", sql: """
            -- As SQLite's (CatalogSchema, version 10).
            CREATE TABLE user_sessions (
                id_hash TEXT NOT NULL PRIMARY KEY CHECK (length(id_hash) = 64),
                user_name TEXT NOT NULL CHECK (length(user_name) BETWEEN 1 AND 64),
                csrf TEXT NOT NULL CHECK (length(csrf) = 64),
                created_s BIGINT NOT NULL,
                expires_s BIGINT NOT NULL
            );
            CREATE INDEX user_sessions_user ON user_sessions (user_name);
            """),
    ]
}
