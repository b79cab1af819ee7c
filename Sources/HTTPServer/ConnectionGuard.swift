import Glibc
import Synchronization

/// Keeps slow and idle clients from holding every connection (slowloris).
///
/// libmicrohttpd's only clock is an idle timeout, which a client sending one byte a second never
/// reaches, and once its connection limit is reached it stops accepting. So the guard adds what
/// nginx has: a deadline for finishing the request headers, separate from the keep-alive idle
/// timeout, and when `maxConnections` are open it closes the connections that have waited longest
/// without a request under way, so a new client is served instead of refused.
///
/// A connection is in one of three places: `fresh` (never sent a whole request head), `idle`
/// (between requests on keep-alive) or in a request (in no list, never closed by the guard). Both
/// lists are in the order their connections started waiting, so their heads expire first.
/// Closing is `shutdown(2)`: libmicrohttpd sees the end of the stream and closes the connection
/// itself, and it reports the close before it closes the descriptor, under the same lock that
/// `shutdown` is called under, so a descriptor is never shut after it was reused.
final class ConnectionGuard: @unchecked Sendable {
    /// One open connection.
    final class Entry {
        let descriptor: Int32
        /// When the current wait ends: the request head must be complete by then.
        fileprivate(set) var deadline = 0.0
        fileprivate var list: WaitList?
        fileprivate var previous: Entry?
        fileprivate var next: Entry?
        fileprivate var closing = false

        init(descriptor: Int32) { self.descriptor = descriptor }
    }

    let maxConnections: Int
    let headerTimeout: Double
    let idleTimeout: Double
    private let mutex = Mutex(())
    private let fresh = WaitList()
    private let idle = WaitList()
    private var open = 0
    private var stopped = false
    private var reaper: pthread_t?
    /// Connections closed for not finishing their request head in time, and to make room.
    private(set) var headerTimeouts = 0
    private(set) var evictions = 0

    init(maxConnections: Int, headerTimeout: Double, idleTimeout: Double) {
        self.maxConnections = max(1, maxConnections)
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
    }

    var counts: (open: Int, headerTimeouts: Int, evictions: Int) {
        locked { (open, headerTimeouts, evictions) }
    }

    /// A connection was accepted: it has `headerTimeout` to send a request head. Over the limit,
    /// the longest-waiting connection without a request under way is closed to make room.
    func opened(descriptor: Int32) -> Entry {
        let entry = Entry(descriptor: descriptor)
        let now = Self.now()
        locked {
            open += 1
            fresh.append(entry, deadline: now + headerTimeout)
            // `entry` is the newest of `fresh`: it is first only when no other fresh connection is left.
            while open - closingCount > maxConnections, let oldest = (fresh.first !== entry ? fresh.first : nil) ?? idle.first {
                close(oldest)
                evictions += 1
            }
        }
        return entry
    }

    /// The request head is complete: no deadline while the request is handled.
    func requestStarted(_ entry: Entry) {
        locked { entry.list?.remove(entry) }
    }

    /// A response went out: on keep-alive, the client may idle for `idleTimeout` (libmicrohttpd enforces
    /// that) and must then finish its next request head within `headerTimeout`.
    func requestFinished(_ entry: Entry) {
        let now = Self.now()
        locked {
            guard !entry.closing, entry.list == nil else { return }
            idle.append(entry, deadline: now + idleTimeout + headerTimeout)
        }
    }

    /// libmicrohttpd is about to close the descriptor.
    func closed(_ entry: Entry) {
        locked {
            entry.list?.remove(entry)
            if entry.closing { closingCount -= 1 }
            entry.closing = true
            open -= 1
        }
    }

    /// Closes every connection whose wait is over. Runs on the reaper thread.
    func expire(now: Double = ConnectionGuard.now()) {
        locked {
            for list in [fresh, idle] {
                while let head = list.first, head.deadline <= now {
                    close(head)
                    headerTimeouts += 1
                }
            }
        }
    }

    /// Starts the thread that closes expired connections, four times per `headerTimeout` at most.
    func startReaper() {
        let period = min(0.25, headerTimeout / 4)
        locked { stopped = false }
        let box = Unmanaged.passRetained(ReaperContext(guard: self, period: period)).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, reaperMain, box) == 0 {
            reaper = thread
        } else {
            Unmanaged<ReaperContext>.fromOpaque(box).release()
        }
    }

    /// Ends the reaper thread and waits for it.
    func stopReaper() {
        locked { stopped = true }
        if let reaper { pthread_join(reaper, nil) }
        reaper = nil
    }

    fileprivate var isStopped: Bool { locked { stopped } }

    private func locked<T>(_ body: () -> T) -> T {
        mutex.withLock { _ in body() }
    }

    /// Connections shut down but not yet closed by libmicrohttpd: they no longer count against the limit.
    private var closingCount = 0

    private func close(_ entry: Entry) {
        entry.list?.remove(entry)
        entry.closing = true
        closingCount += 1
        shutdown(entry.descriptor, Int32(SHUT_RDWR))
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Connections waiting for a request head, in the order they started waiting (an intrusive list:
/// appending and removing cost no allocation and no search).
final class WaitList {
    private(set) var first: ConnectionGuard.Entry?
    private var last: ConnectionGuard.Entry?

    func append(_ entry: ConnectionGuard.Entry, deadline: Double) {
        entry.deadline = deadline
        entry.list = self
        entry.previous = last
        entry.next = nil
        if let last { last.next = entry } else { first = entry }
        last = entry
    }

    func remove(_ entry: ConnectionGuard.Entry) {
        guard entry.list === self else { return }
        if let previous = entry.previous { previous.next = entry.next } else { first = entry.next }
        if let next = entry.next { next.previous = entry.previous } else { last = entry.previous }
        entry.previous = nil
        entry.next = nil
        entry.list = nil
    }
}

private final class ReaperContext {
    let guardian: ConnectionGuard
    let period: Double
    init(guard: ConnectionGuard, period: Double) {
        guardian = `guard`
        self.period = period
    }
}

/// The reaper thread: a plain pthread (not Foundation's Thread) so that a stop can join it.
private func reaperMain(_ box: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let context = Unmanaged<ReaperContext>.fromOpaque(box!).takeRetainedValue()
    while !context.guardian.isStopped {
        context.guardian.expire()
        usleep(useconds_t(context.period * 1e6))
    }
    return nil
}

