import Foundation
import Testing
import TestSupport
@testable import Catalog

/// Build leases in PostgreSQL: one holder at a time, renewal, takeover once a lease lapses, and
/// a published pyramid never built again.
@Suite struct BuildLeasesTests {
    func replicas(_ count: Int, leaseSeconds: Int) throws -> [PostgresBuildLeases] {
        let url = try PostgresCluster.freshDatabaseURL()
        return try (1...count).map {
            PostgresBuildLeases(database: try PostgresDatabase(url: url, migrations: PostgresSchema.migrations),
                                holder: "r\($0)", leaseSeconds: leaseSeconds)
        }
    }

    /// Twelve replicas claim the same pyramid at the same moment: exactly one gets it.
    @Test func exactlyOneOfManyConcurrentClaimsIsGranted() throws {
        let leases = try replicas(12, leaseSeconds: 60)
        let answers = Locked<[BuildClaim]>([])
        onManyThreads(12) { index in
            let answer = (try? leases[index].claim(id: "tiger", version: "v1")) ?? .heldElsewhere(holder: "error")
            answers.mutate { $0.append(answer) }
        }
        #expect(answers.value.filter { $0 == .granted }.count == 1)
        #expect(answers.value.count == 12)
    }

    @Test func aLiveLeaseIsHeldAndALapsedOneIsTakenOver() throws {
        let leases = try replicas(2, leaseSeconds: 1)
        #expect(try leases[0].claim(id: "tiger", version: "v1") == .granted)
        #expect(try leases[1].claim(id: "tiger", version: "v1") == .heldElsewhere(holder: "r1"))
        #expect(try leases[0].renew(id: "tiger", version: "v1"))
        // Another version of the same image is another job.
        #expect(try leases[1].claim(id: "tiger", version: "v2") == .granted)
        // r1 stops renewing (it died): once its lease lapses, r2 takes the build over.
        var taken = false
        let deadline = Date().addingTimeInterval(20)
        while !taken && Date() < deadline {
            taken = try leases[1].claim(id: "tiger", version: "v1") == .granted
            if !taken { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(taken)
        #expect(try !leases[0].renew(id: "tiger", version: "v1"))  // r1, back, learns it lost the lease
        try leases[1].finish(id: "tiger", version: "v1", published: true)
        #expect(try leases[0].claim(id: "tiger", version: "v1") == .alreadyPublished)
    }

    @Test func aFailedBuildLetsAnotherReplicaTryAtOnce() throws {
        let leases = try replicas(2, leaseSeconds: 60)
        #expect(try leases[0].claim(id: "bad", version: "v1") == .granted)
        try leases[0].finish(id: "bad", version: "v1", published: false)
        #expect(try leases[1].claim(id: "bad", version: "v1") == .granted)
    }

    @Test func aLoneServerGrantsEveryClaim() throws {
        let local = LocalBuildLeases()
        #expect(try local.claim(id: "a", version: "v") == .granted)
        #expect(try local.claim(id: "a", version: "v") == .granted)
        #expect(try local.renew(id: "a", version: "v"))
    }
}
