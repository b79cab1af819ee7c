import Foundation
import Testing
@testable import Catalog

/// Signed-in users' sessions in the catalog, on both engines: what one connection writes another (a
/// restarted server, another replica) reads; signing out and ending are seen by every connection.
@Suite struct UserSessionsTests {
    static func session(_ digit: Character, user: String = "ann", expires: Int = 2_000) -> UserSession {
        UserSession(idHash: String(repeating: digit, count: 64), user: user, csrf: String(repeating: "c", count: 64),
                    created: 1_000, expires: expires)
    }

    @Test(arguments: CatalogEngine.allCases)
    func aSessionIsSeenByEveryConnectionUntilItEndsOrIsDeleted(engine: CatalogEngine) throws {
        let catalog = try engine.open()
        let one = UserSessions(database: catalog.database), other = UserSessions(database: try catalog.reopen().database)
        try one.insert(Self.session("a"), now: 1_000)
        try one.insert(Self.session("b", user: "root", expires: 1_500), now: 1_000)
        #expect(try other.session(idHash: String(repeating: "a", count: 64), now: 1_100) == Self.session("a"))
        #expect(try other.session(idHash: String(repeating: "b", count: 64), now: 1_100)?.user == "root")
        // Ended: not found, and deleted at the next insert.
        #expect(try other.session(idHash: String(repeating: "b", count: 64), now: 1_500) == nil)
        try other.insert(Self.session("d"), now: 1_600)
        let rows = try catalog.database.reading { try $0.query("SELECT COUNT(*) AS n FROM user_sessions") }
        #expect(rows.first?["n"].integer == 2)
        // Signing out on one connection ends it on the other.
        try other.delete(idHash: String(repeating: "a", count: 64))
        #expect(try one.session(idHash: String(repeating: "a", count: 64), now: 1_700) == nil)
        try one.deleteAll(of: "ann")
        #expect(try other.session(idHash: String(repeating: "d", count: 64), now: 1_700) == nil)
        try other.delete(idHash: String(repeating: "e", count: 64))  // nothing to delete: no error
    }

    @Test(arguments: CatalogEngine.allCases)
    func theTableRefusesMalformedRows(engine: CatalogEngine) throws {
        let sessions = UserSessions(database: try engine.open().database)
        #expect(throws: (any Error).self) {
            try sessions.insert(UserSession(idHash: "short", user: "ann", csrf: String(repeating: "c", count: 64), created: 0, expires: 9), now: 0)
        }
        #expect(throws: (any Error).self) {
            try sessions.insert(UserSession(idHash: String(repeating: "f", count: 64), user: "", csrf: String(repeating: "c", count: 64),
                                            created: 0, expires: 9), now: 0)
        }
        try sessions.insert(Self.session("a"), now: 0)
        #expect(throws: (any Error).self) { try sessions.insert(Self.session("a"), now: 0) }  // one row per secret
    }
}
