/// Build leases in the `build_jobs` table of a PostgreSQL catalog (`PostgresSchema`): one row per
/// pyramid, locked with `SELECT ... FOR UPDATE SKIP LOCKED` while a replica decides whether it may
/// take it, so two replicas never both get `.granted` for a live job. Lease times are the
/// database server's clock (`now()`), so replicas' clocks need not agree.
public struct PostgresBuildLeases: BuildLeases {
    public let database: PostgresDatabase
    /// This replica's id, written as the holder.
    public let holder: String
    public let leaseSeconds: Int

    public init(database: PostgresDatabase, holder: String, leaseSeconds: Int) {
        self.database = database
        self.holder = holder
        self.leaseSeconds = max(1, leaseSeconds)
    }

    public func claim(id: String, version: String) throws -> BuildClaim {
        try database.writing { transaction in
            try transaction.execute("INSERT INTO build_jobs (image_id, version) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                    .text(id), .text(version))
            // SKIP LOCKED: a row another replica is claiming right now is simply not ours to take.
            let rows = try transaction.query("""
                SELECT state, holder, CAST(lease_until > now() AS integer) AS live FROM build_jobs
                WHERE image_id = ? AND version = ? FOR UPDATE SKIP LOCKED
                """, .text(id), .text(version))
            guard let row = rows.first else { return .heldElsewhere(holder: nil) }
            if row["state"].text == "published" { return .alreadyPublished }
            if let other = row["holder"].text, other != holder, row["live"].integer == 1 {
                return .heldElsewhere(holder: other)
            }
            try transaction.execute("""
                UPDATE build_jobs SET holder = ?, lease_until = now() + make_interval(secs => CAST(? AS integer)),
                    attempts = attempts + 1
                WHERE image_id = ? AND version = ?
                """, .text(holder), DatabaseValue(leaseSeconds), .text(id), .text(version))
            return .granted
        }
    }

    public func renew(id: String, version: String) throws -> Bool {
        try database.writing { transaction in
            try transaction.execute("""
                UPDATE build_jobs SET lease_until = now() + make_interval(secs => CAST(? AS integer))
                WHERE image_id = ? AND version = ? AND holder = ? AND state = 'pending'
                """, DatabaseValue(leaseSeconds), .text(id), .text(version), .text(holder))
        } == 1
    }

    public func finish(id: String, version: String, published: Bool) throws {
        try database.writing { transaction in
            if published {
                // Whoever published, the pyramid exists now: nobody builds it again.
                try transaction.execute("""
                    UPDATE build_jobs SET state = 'published', holder = NULL, lease_until = NULL
                    WHERE image_id = ? AND version = ?
                    """, .text(id), .text(version))
            } else {
                try transaction.execute("""
                    UPDATE build_jobs SET holder = NULL, lease_until = NULL
                    WHERE image_id = ? AND version = ? AND holder = ? AND state = 'pending'
                    """, .text(id), .text(version), .text(holder))
            }
        }
    }
}
