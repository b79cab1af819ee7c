import Foundation

/// The server's state for one request, from its first header to its completion:
/// what libmicrohttpd's per-request context pointer points at.
final class Exchange: @unchecked Sendable {
    var request: Request
    let startNanoseconds: UInt64
    /// Set by a worker before it resumes the connection; read after the resume.
    var pending: Response?
    var dispatched = false
    /// Answered in the first call (before the body): nothing more to do but let it close.
    var answeredEarly = false
    /// Set while a streamed body is arriving; nil once it is finished or aborted.
    var sink: (any BodySink)?
    var streamedBytes = 0
    /// The connection's `ConnectionGuard.Entry` (unretained: the connection keeps it until it closes).
    var connectionEntry: UnsafeMutableRawPointer?
    /// The answer to a body refused while it arrived, sent once the body has ended.
    var refusal: Response?
    var discardedBytes = 0
    var sentStatus = 0
    /// Costly work only: its wait in the fair queue, or its refusal (set before the connection is resumed).
    var queuedSeconds: Double?
    var costlyRefusal: CostlyRefusal?
    var sentBytes = 0

    init(request: Request) {
        self.request = request
        self.startNanoseconds = DispatchTime.now().uptimeNanoseconds
    }

    var elapsedSeconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds - startNanoseconds) / 1e9
    }
}
