import Foundation

/// A loopback TCP server that answers every request with the same bytes, written here: for what a
/// real store does not do on demand (lie about lengths, send garbage, stall). Not a stand-in for S3:
/// it knows nothing of it; it checks the HTTP client against hostile peers.
final class CannedHTTPPeer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let answer: [UInt8]
    private let closeAfterAnswer: Bool
    private let lock = NSLock()
    private var accepted: [Int32] = []
    private var stopped = false
    private var requestCount = 0
    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted.count } }
    /// Request heads received so far.
    var requests: Int { lock.withLock { requestCount } }

    /// `answer` nil: read requests and never answer (a stalled server).
    init(answer: [UInt8]?, closeAfterAnswer: Bool = true) throws {
        self.answer = answer ?? []
        self.closeAfterAnswer = closeAfterAnswer
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, listen(listener, 16) == 0 else { close(listener); throw CannedPeerError() }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let silent = answer == nil
        Thread.detachNewThread { [self] in serve(silent: silent) }
    }

    func stop() {
        lock.withLock {
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for connection in accepted { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        close(listener)
        for connection in accepted { close(connection) }
    }

    private func serve(silent: Bool) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let keep = lock.withLock { () -> Bool in
                accepted.append(connection)
                return !stopped
            }
            guard keep else { return }
            Thread.detachNewThread { [self] in answerRequests(on: connection, silent: silent) }
        }
    }

    private func answerRequests(on connection: Int32, silent: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            pending += buffer[0..<count]
            while let end = Self.endOfHead(pending) {
                pending.removeFirst(end)
                lock.withLock { requestCount += 1 }
                if silent { continue }
                _ = answer.withUnsafeBytes { send(connection, $0.baseAddress!, answer.count, Int32(MSG_NOSIGNAL)) }
                if closeAfterAnswer { shutdown(connection, Int32(SHUT_RDWR)); return }
            }
        }
    }

    /// Bytes up to and including the first blank line (the requests sent here have no body).
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}

struct CannedPeerError: Error {}
