/// Who builds which pyramid when several replicas share one pyramid store: a builder claims a
/// pyramid (image id and source version) before building it, renews the claim while it builds,
/// and finishes it when done. A replica that dies stops renewing, and after the lease runs out
/// another replica's claim succeeds: the build is taken over.
///
/// `LocalBuildLeases` (one server: every claim is granted) and `PostgresBuildLeases` (a fleet).
/// Calls are synchronous; they run on builder threads.
public protocol BuildLeases: Sendable {
    /// Tries to take the build of `version` of image `id` for this replica.
    func claim(id: String, version: String) throws -> BuildClaim
    /// Extends this replica's lease; false if it no longer holds it (taken over after it expired).
    func renew(id: String, version: String) throws -> Bool
    /// Ends this replica's lease: `published` true marks the pyramid built for good; false lets
    /// another replica try.
    func finish(id: String, version: String, published: Bool) throws
    /// Seconds a lease lasts unrenewed; builders renew well within it.
    var leaseSeconds: Int { get }
}

/// The answer to a claim.
public enum BuildClaim: Equatable, Sendable {
    /// This replica builds it now.
    case granted
    /// Another replica holds a live lease (`holder`: its replica id, when known).
    case heldElsewhere(holder: String?)
    /// Some replica already built and published it.
    case alreadyPublished
}

/// One server alone: every claim is granted (the build queue already builds each pyramid once).
public struct LocalBuildLeases: BuildLeases {
    public init() {}
    public func claim(id: String, version: String) throws -> BuildClaim { .granted }
    public func renew(id: String, version: String) throws -> Bool { true }
    public func finish(id: String, version: String, published: Bool) throws {}
    public var leaseSeconds: Int { 3600 }
}
