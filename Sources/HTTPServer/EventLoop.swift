import CMicroHTTPD
import CHTTPShims
import Glibc
import Synchronization

/// One libmicrohttpd daemon driven by a thread of ours instead of libmicrohttpd's own poll thread.
///
/// Why: libmicrohttpd 0.9.75's internal epoll loop (`MHD_epoll` in daemon.c; the same in
/// the newest source read, v1.0.1-44-gc372caeb, April 2025)
/// drains the epoll set with `while (MAX_EVENTS == num_events) epoll_wait(..., timeout_ms)`, where
/// `MAX_EVENTS` is 128 and `timeout_ms` is the time to the next connection timeout (up to
/// `connectionTimeout`, 30 s). When one wakeup returns exactly 128 ready descriptors, the second
/// `epoll_wait` blocks with that timeout while the 128 connections it just learnt about (their events
/// are edge-triggered, so they will not be reported again) wait unprocessed: the server stops until
/// another event arrives. At 128 or more busy connections on a thread that happens often.
///
/// Here libmicrohttpd runs as an "external" daemon and this thread calls it in one of two ways:
/// - busy (the last call found work): `MHD_run_wait(daemon, 5)`, the same loop with its waits capped
///   at `busyWaitMilliseconds`, so the 128-event wait lasts 5 ms at most. One `epoll_wait` per wakeup,
///   as libmicrohttpd's own thread makes.
/// - idle (the last call waited its whole 5 ms for nothing): the thread sleeps in `poll` on the
///   daemon's epoll descriptor (which does not consume its events) for as long as `MHD_get_timeout`
///   allows, then calls `MHD_run`, which drains with a zero timeout.
/// A second descriptor (an eventfd) wakes an idle thread for what libmicrohttpd 0.9.75 does not wake an
/// external loop for reliably: a resumed connection (its `resuming` flag is not part of
/// `MHD_get_timeout`) and the stop.
///
/// A turn that closed connections is always followed by another before the thread sleeps. libmicrohttpd
/// 0.9.75 (`MHD_epoll`) takes the listening socket out of the daemon's epoll set at the start of a turn
/// when the daemon is at its connection limit (or `at_limit` after EMFILE), and puts it back only at the
/// start of a later turn; connections that close during a turn are freed, and `at_limit` cleared, at its
/// end (`MHD_cleanup_connections`). When such a turn outlasted the 5 ms busy wait (common on a loaded
/// machine), the thread slept in `poll` on an epoll set without the listening socket although it had
/// room: new clients waited in the kernel's accept queue until another event on that daemon, up to the
/// 10 s header deadline. Seen in the hostile full-server test about 1 run in 20: both daemons asleep at
/// 107 and 91 of their 108 connections, neither listening (their epoll sets in /proc/PID/fdinfo), 62 to
/// 178 clients queued. Only a turn that closed nothing can be the last before sleeping.
final class EventLoop: @unchecked Sendable {
    let daemon: OpaquePointer
    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let stopping = Atomic<Bool>(false)
    private var thread: pthread_t?

    /// Nil when the daemon has no epoll descriptor or no eventfd can be made.
    init?(daemon: OpaquePointer) {
        let epoll = ts_mhd_epoll_fd(daemon)
        guard epoll >= 0 else { return nil }
        let wake = ts_eventfd()
        guard wake >= 0 else { return nil }
        self.daemon = daemon
        self.epollDescriptor = epoll
        self.wakeDescriptor = wake
        // The eventfd also sits in the daemon's own epoll set, so that a resume ends a busy thread's
        // `MHD_run_wait` at once instead of after its 5 ms: a rendered IIIF tile otherwise waited out
        // the rest of the 5 ms (`total;dur` 5.2 ms for a 1 ms render). libmicrohttpd skips an event
        // whose `data.ptr` is NULL (`MHD_epoll`: "shutdown signal"); edge-triggered, so it is reported
        // once per write, and the idle path's `poll` drains the count.
        _ = ts_epoll_add_silent(epoll, wake)
    }

    deinit { close(wakeDescriptor) }

    /// Starts the thread; false if it could not be created.
    func start(name: String) -> Bool {
        let box = Unmanaged.passRetained(LoopStart(loop: self, name: name)).toOpaque()
        var created = pthread_t()
        guard pthread_create(&created, nil, eventLoopMain, box) == 0 else {
            Unmanaged<LoopStart>.fromOpaque(box).release()
            return false
        }
        thread = created
        return true
    }

    /// Makes the thread run libmicrohttpd once more soon (after a resume).
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Ends the thread and waits for it; the daemon is left for the caller to stop.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake()
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    /// The cap on libmicrohttpd's waits while busy, and how long a busy thread waits before it sleeps.
    /// 5 ms, not 1: at 8 connections a 1 ms cap sent the thread idle between most requests (a client
    /// on a shared core is often slower than that), and every idle wakeup costs a `poll` and a second
    /// `epoll_wait`: 21 against 16 us per tile, where 5 ms measured 17 against 19 (docs/benchmarks.md).
    static let busyWaitMilliseconds: Int32 = 5

    fileprivate func run() {
        var descriptors = [pollfd(fd: epollDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        var drained: UInt64 = 0
        var busy = false
        var connections = ts_mhd_connection_count(daemon)
        while !stopping.load(ordering: .acquiring) {
            if busy {
                let start = Self.nanoseconds()
                _ = MHD_run_wait(daemon, Self.busyWaitMilliseconds)
                let before = connections
                connections = ts_mhd_connection_count(daemon)
                // A turn that closed connections is followed by another, however long it took, so that
                // the listening socket is back before the thread sleeps (see the type's comment).
                busy = Self.nanoseconds() - start < Int64(Self.busyWaitMilliseconds) * 1_000_000
                    || connections < before
                continue
            }
            let timeout = waitMilliseconds()
            if timeout != 0 {
                descriptors[0].revents = 0
                descriptors[1].revents = 0
                _ = poll(&descriptors, 2, timeout)
                if descriptors[1].revents != 0 { _ = read(wakeDescriptor, &drained, 8) }
            }
            _ = MHD_run(daemon)
            connections = ts_mhd_connection_count(daemon)
            busy = true
        }
    }

    private static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// How long to wait for events: 0 when libmicrohttpd has work queued, -1 for no deadline.
    private func waitMilliseconds() -> Int32 {
        var milliseconds: CUnsignedLongLong = 0
        guard MHD_get_timeout(daemon, &milliseconds) == .YES else { return -1 }
        return Int32(clamping: milliseconds)
    }
}

private final class LoopStart {
    let loop: EventLoop
    let name: String
    init(loop: EventLoop, name: String) {
        self.loop = loop
        self.name = name
    }
}

/// The loop's thread: a plain pthread so that a stop can join it.
private func eventLoopMain(_ box: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<LoopStart>.fromOpaque(box!).takeRetainedValue()
    ts_set_thread_name(start.name)
    start.loop.run()
    return nil
}
