import Foundation

/// The server's state for one request, from its first header to its completion:
/// what libmicrohttpd's per-request context pointer points at.
final class Exchange: @unchecked Sendable {
    var request: Request
    let startNanoseconds: UInt64
    /// Set by a worker before it resumes the connection; read after the resume.
    var pending: Response?
    var dispatched = false
    var bodyTooLarge = false
    var sentStatus = 0
    var sentBytes = 0

    init(request: Request) {
        self.request = request
        self.startNanoseconds = DispatchTime.now().uptimeNanoseconds
    }

    var elapsedSeconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds - startNanoseconds) / 1e9
    }
}
