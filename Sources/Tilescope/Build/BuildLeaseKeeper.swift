import Catalog
import Foundation

/// Holds one granted build lease for as long as its build runs: renews it every third of its
/// length on a thread of its own, and ends it when the build ends. If a renewal finds the lease
/// taken over (this replica stalled past its expiry), the build goes on: publishing is atomic and
/// the second publish of a version is dropped, so the worst case is work done twice, never a
/// partial or mixed pyramid.
final class BuildLeaseKeeper: @unchecked Sendable { // @unchecked: `ended` is behind `condition`.
    private let leases: any BuildLeases
    private let id: String
    private let version: String
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var ended = false

    init(leases: any BuildLeases, id: String, version: String, log: @escaping @Sendable (String) -> Void) {
        self.leases = leases
        self.id = id
        self.version = version
        self.log = log
        let thread = Thread { self.renewUntilEnded() }
        thread.name = "lease-\(id)"
        thread.start()
    }

    /// Stops renewing and records the outcome (`published`: nobody builds this version again).
    func end(published: Bool) {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
        do { try leases.finish(id: id, version: version, published: published) } catch {
            log("cannot end the build lease of \(id) (it expires by itself): \(error)")
        }
    }

    private func renewUntilEnded() {
        let interval = max(0.5, Double(leases.leaseSeconds) / 3)
        condition.lock()
        defer { condition.unlock() }
        while !ended {
            condition.wait(until: Date().addingTimeInterval(interval))
            guard !ended else { return }
            condition.unlock()
            do {
                if try !leases.renew(id: id, version: version) {
                    log("the build lease of \(id) was taken over by another replica; finishing this build anyway")
                }
            } catch {
                log("cannot renew the build lease of \(id) (retried): \(error)")
            }
            condition.lock()
        }
    }
}
