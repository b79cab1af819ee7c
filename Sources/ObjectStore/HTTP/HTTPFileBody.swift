import Foundation

/// A request body sent from an open file, a slice at a time: an upload of a gigabyte costs one slice of
/// memory. Read with `pread` from offset 0 on every send, so a request sent again (a pooled connection
/// found closed) sends the same bytes.
public struct HTTPFileBody: Sendable {
    /// Open for reading; owned by the caller, who closes it after the call.
    public let descriptor: Int32
    /// Bytes sent: the file's size when the caller looked (a file that shrinks meanwhile fails the send).
    public let length: Int

    /// Bytes read and written at a time.
    static let sliceBytes = 1 << 20

    public init(descriptor: Int32, length: Int) {
        self.descriptor = descriptor
        self.length = max(0, length)
    }

    /// Sends the whole body on `connection` before `deadline`.
    func send(on connection: HTTPConnection, until deadline: Double) throws {
        var slice = [UInt8](repeating: 0, count: min(Self.sliceBytes, max(length, 1)))
        var offset = 0
        while offset < length {
            let wanted = min(slice.count, length - offset)
            let count = slice.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, wanted, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw HTTPClientError.invalidRequest("the body's file ended at \(offset) of \(length) bytes")
            }
            try connection.write(count == slice.count ? slice : Array(slice[0..<count]), until: deadline)
            offset += count
        }
    }
}
