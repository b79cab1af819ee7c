/// Signed-in users' sessions, in the catalog's `user_sessions` table: the one place every replica shares
/// (SQLite in the data folder, PostgreSQL for a fleet), so a session survives a restart and opens the same
/// doors on every replica, and signing out (deleting the row) ends it everywhere. Same SQL for both engines.
public struct UserSessions: Sendable {
    public let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Records `session`; also deletes sessions that ended, so the table holds live ones only.
    public func insert(_ session: UserSession, now: Int) throws {
        try database.writing { transaction in
            try transaction.execute("DELETE FROM user_sessions WHERE expires_s <= ?", .integer(Int64(now)))
            try transaction.execute(
                "INSERT INTO user_sessions (id_hash, user_name, csrf, created_s, expires_s) VALUES (?, ?, ?, ?, ?)",
                .text(session.idHash), .text(session.user), .text(session.csrf), .integer(Int64(session.created)),
                .integer(Int64(session.expires)))
        }
    }

    /// The live session whose secret hashes to `idHash`, nil if there is none (never was, signed out, ended).
    public func session(idHash: String, now: Int) throws -> UserSession? {
        let rows = try database.reading {
            try $0.query("SELECT id_hash, user_name, csrf, created_s, expires_s FROM user_sessions WHERE id_hash = ? AND expires_s > ?",
                         .text(idHash), .integer(Int64(now)))
        }
        guard let row = rows.first, let user = row["user_name"].text, let csrf = row["csrf"].text,
              let created = row["created_s"].integer, let expires = row["expires_s"].integer else { return nil }
        return UserSession(idHash: idHash, user: user, csrf: csrf, created: Int(created), expires: Int(expires))
    }

    /// Ends the session (signing out); nothing happens for one that is gone already.
    public func delete(idHash: String) throws {
        try database.writing { try $0.execute("DELETE FROM user_sessions WHERE id_hash = ?", .text(idHash)) }
    }

    /// Ends every session of `user` (a user removed from the users file, or an operator's reset).
    public func deleteAll(of user: String) throws {
        try database.writing { try $0.execute("DELETE FROM user_sessions WHERE user_name = ?", .text(user)) }
    }
}
