import Foundation
@testable import ObjectStore

/// ObjectStore's HTTP/1.1 answer reader on arbitrary bytes (what a broken or hostile store could send),
/// read through a real socket pair whose other end is closed. Besides not trapping: an answer read is
/// within the limits (status 100-599, body at most maxBodyBytes, none for HEAD), and a failure is one of
/// the typed errors.
enum HTTPResponseTarget {
    static func run(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let isHead = first & 1 == 1
        var settings = HTTPClientSettings()
        settings.maxHeadBytes = 1024
        settings.maxBodyBytes = 2048
        settings.requestTimeout = 5
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return }
        close(pair[1])
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        let connection = HTTPConnection(descriptor: pair[0])
        connection.pending = Array(bytes.dropFirst())
        var reader = HTTPResponseReader(connection: connection, settings: settings, deadline: Monotonic.now() + 5)
        do {
            let (response, _) = try reader.read(isHead: isHead)
            FuzzCheck.require((100...599).contains(response.status), "status \(response.status)")
            FuzzCheck.require(response.body.count <= settings.maxBodyBytes, "a body of \(response.body.count) bytes")
            FuzzCheck.require(!isHead || response.body.isEmpty, "a body for HEAD")
        } catch let error as HTTPClientError {
            if case .timedOut = error { FuzzCheck.require(false, "timed out on a closed connection") }
        } catch {
            FuzzCheck.require(false, "an untyped error: \(error)")
        }
    }
}
