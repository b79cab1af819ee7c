import CMicroHTTPD
import Foundation

/// The connections suspended while a worker prepares their answer.
///
/// Why the registry: libmicrohttpd aborts the process when it is stopped with a connection still
/// suspended, and a worker must never resume a connection once the daemon is gone. So a stop past its
/// deadline answers every connection still waiting itself (`closeAndResumeAll`), and a worker that
/// finishes afterwards finds its connection gone from here and drops its answer. One lock orders the
/// three moves: suspending, resuming with the worker's answer, and closing.
final class SuspendedConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [ObjectIdentifier: (exchange: Exchange, connection: OpaquePointer)] = [:]
    private var closed = false
    /// Called after each resume with the resumed connection: its event loop must be woken, which
    /// libmicrohttpd 0.9.75 does not do reliably for a loop run outside it (see `EventLoop`).
    var resumed: (@Sendable (OpaquePointer) -> Void)?

    /// Suspends the connection until `finish`; false (and not suspended) once the server is stopping.
    func suspend(_ exchange: Exchange, on connection: OpaquePointer) -> Bool {
        lock.withLock {
            guard !closed else { return false }
            waiting[ObjectIdentifier(exchange)] = (exchange, connection)
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// Resumes the connection with the worker's answer, unless a stop has already answered it.
    func finish(_ exchange: Exchange, with response: Response) {
        lock.withLock {
            guard let entry = waiting.removeValue(forKey: ObjectIdentifier(exchange)) else { return }
            exchange.pending = response
            MHD_resume_connection(entry.connection)
            resumed?(entry.connection)
        }
    }

    /// Refuses further suspensions and resumes every connection still waiting with `response()`.
    func closeAndResumeAll(with response: () -> Response) {
        lock.withLock {
            closed = true
            for entry in waiting.values {
                entry.exchange.pending = response()
                MHD_resume_connection(entry.connection)
                resumed?(entry.connection)
            }
            waiting.removeAll()
        }
    }
}
