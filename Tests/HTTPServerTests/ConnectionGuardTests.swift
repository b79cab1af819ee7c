import Glibc
import Testing
@testable import HTTPServer

/// The guard's rules on real sockets (socket pairs), with the clock given by the test.
@Suite struct ConnectionGuardTests {
    /// One end the guard may shut down, and the peer that sees it.
    final class Pair {
        let server: Int32, client: Int32
        init() {
            var ends: [Int32] = [0, 0]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            (server, client) = (ends[0], ends[1])
            var timeout = timeval(tv_sec: 0, tv_usec: 1)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        deinit { close(server); close(client) }
        /// True once the guard shut the server end (the client reads end of stream).
        var isShut: Bool {
            var byte: UInt8 = 0
            return recv(client, &byte, 1, 0) == 0
        }
    }

    @Test func aConnectionWithoutARequestHeadIsClosedAtItsDeadlineNotBefore() {
        let guardian = ConnectionGuard(maxConnections: 100, headerTimeout: 10, idleTimeout: 30)
        let pair = Pair()
        let start = ConnectionGuard.now()
        _ = guardian.opened(descriptor: pair.server)
        guardian.expire(now: start + 9)
        #expect(!pair.isShut)
        guardian.expire(now: start + 10.5)
        #expect(pair.isShut)
        #expect(guardian.counts.headerTimeouts == 1)
    }

    @Test func aRequestUnderWayIsNeverClosedAndKeepAliveGetsTheIdleTimeFirst() {
        let guardian = ConnectionGuard(maxConnections: 100, headerTimeout: 10, idleTimeout: 30)
        let pair = Pair()
        let start = ConnectionGuard.now()
        let entry = guardian.opened(descriptor: pair.server)
        guardian.requestStarted(entry)
        guardian.expire(now: start + 1000)
        #expect(!pair.isShut)
        guardian.requestFinished(entry)
        let finished = ConnectionGuard.now()
        guardian.expire(now: finished + 39)  // idle 30 s + head 10 s
        #expect(!pair.isShut)
        guardian.expire(now: finished + 40.5)
        #expect(pair.isShut)
    }

    @Test func atTheLimitTheOldestWaitingConnectionMakesRoomFreshOnesFirst() {
        let guardian = ConnectionGuard(maxConnections: 3, headerTimeout: 10, idleTimeout: 30)
        let pairs = (0..<5).map { _ in Pair() }
        let idle = guardian.opened(descriptor: pairs[0].server)   // served a request: keep-alive
        guardian.requestStarted(idle)
        guardian.requestFinished(idle)
        let busy = guardian.opened(descriptor: pairs[1].server)   // a request under way
        guardian.requestStarted(busy)
        _ = guardian.opened(descriptor: pairs[2].server)          // fresh, oldest
        #expect(guardian.counts.evictions == 0)
        _ = guardian.opened(descriptor: pairs[3].server)          // over the limit: the oldest fresh one goes
        #expect(pairs[2].isShut)
        #expect(!pairs[0].isShut && !pairs[1].isShut && !pairs[3].isShut)
        _ = guardian.opened(descriptor: pairs[4].server)          // next: the oldest fresh one again (pairs[3])
        #expect(pairs[3].isShut)
        #expect(!pairs[0].isShut && !pairs[1].isShut && !pairs[4].isShut)
        #expect(guardian.counts.evictions == 2)
    }

    @Test func withNoFreshConnectionLeftTheIdleKeepAliveOneGoesNeverTheBusyOne() {
        let guardian = ConnectionGuard(maxConnections: 2, headerTimeout: 10, idleTimeout: 30)
        let pairs = (0..<3).map { _ in Pair() }
        let idle = guardian.opened(descriptor: pairs[0].server)
        guardian.requestStarted(idle)
        guardian.requestFinished(idle)
        let busy = guardian.opened(descriptor: pairs[1].server)
        guardian.requestStarted(busy)
        _ = guardian.opened(descriptor: pairs[2].server)
        #expect(pairs[0].isShut)
        #expect(!pairs[1].isShut && !pairs[2].isShut)
    }

    /// A connection closed by libmicrohttpd leaves the lists: the guard never shuts its descriptor,
    /// which the next accept may have reused.
    @Test func aClosedConnectionIsForgottenBeforeItsDescriptorCanBeReused() {
        let guardian = ConnectionGuard(maxConnections: 1, headerTimeout: 10, idleTimeout: 30)
        let first = Pair(), second = Pair()
        let entry = guardian.opened(descriptor: first.server)
        guardian.closed(entry)
        _ = guardian.opened(descriptor: second.server)
        guardian.expire(now: ConnectionGuard.now() + 5)
        #expect(!first.isShut && !second.isShut)
        #expect(guardian.counts.open == 1 && guardian.counts.evictions == 0)
    }

    /// The reaper closes an expired connection by itself, and a stop ends it (joined, so it cannot outlive the server).
    @Test func theReaperClosesExpiredConnectionsAndStops() throws {
        let guardian = ConnectionGuard(maxConnections: 10, headerTimeout: 0.2, idleTimeout: 1)
        for _ in 0..<3 {
            let pair = Pair()
            _ = guardian.opened(descriptor: pair.server)
            guardian.startReaper()
            var waited = 0
            while !pair.isShut && waited < 1000 {  // up to 10 s on a loaded machine
                usleep(10_000)
                waited += 1
            }
            guardian.stopReaper()
            #expect(pair.isShut)
        }
        #expect(guardian.counts.headerTimeouts == 3)
    }
}
