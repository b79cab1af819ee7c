/// Reads one HTTP/1.1 answer from a connection: the head, then the body framed by Content-Length,
/// chunked transfer coding, or the end of the stream; every size checked against its limit before
/// it is read, so a lying or endless server costs a bounded amount of memory.
struct HTTPResponseReader {
    let connection: HTTPConnection
    let settings: HTTPClientSettings
    let deadline: Double
    private var buffer: [UInt8] = []
    private var position = 0
    /// Bytes received for this answer so far (zero means the server answered nothing at all).
    private(set) var received = 0

    init(connection: HTTPConnection, settings: HTTPClientSettings, deadline: Double) {
        self.connection = connection
        self.settings = settings
        self.deadline = deadline
    }

    /// The answer, and whether the connection may carry another request.
    mutating func read(isHead: Bool) throws -> (response: HTTPClientResponse, reusable: Bool) {
        var head = try readHead()
        // 1xx answers (100 Continue) come before the real one: skip them.
        while (100..<200).contains(head.status) && head.status != 101 { head = try readHead() }
        let connectionHeader = head.header("connection")?.lowercased() ?? ""
        var reusable = head.version == "HTTP/1.1" ? !connectionHeader.contains("close") : connectionHeader.contains("keep-alive")
        let body: [UInt8]
        if isHead || head.status == 204 || head.status == 304 {
            body = []
        } else if let coding = head.header("transfer-encoding")?.lowercased(), coding != "identity" {
            guard coding.hasSuffix("chunked") else { throw HTTPClientError.malformedResponse("unsupported Transfer-Encoding") }
            body = try readChunked()
        } else if let lengthText = head.header("content-length") {
            guard let length = Int(lengthText.trimmingSpaces), length >= 0, lengthText.trimmingSpaces.allSatisfy(\.isASCIIDigit) else {
                throw HTTPClientError.malformedResponse("Content-Length is not a number")
            }
            guard length <= settings.maxBodyBytes else { throw HTTPClientError.responseTooLarge(limit: settings.maxBodyBytes) }
            body = try readExactly(length)
        } else {
            body = try readToEnd()
            reusable = false
        }
        // Bytes beyond the answer were never asked for: the connection is out of step, drop it.
        if position < buffer.count { reusable = false }
        return (HTTPClientResponse(status: head.status, headers: head.headers, body: body), reusable)
    }

    private struct Head {
        let version: String
        let status: Int
        let headers: [(name: String, value: String)]
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
    }

    private mutating func readHead() throws -> Head {
        var lines: [String] = []
        var headBytes = 0
        while true {
            let line = try readLine(limit: settings.maxHeadBytes - headBytes)
            headBytes += line.count + 2
            if line.isEmpty { if lines.isEmpty { continue } else { break } }
            lines.append(String(decoding: line, as: UTF8.self))
        }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), statusLine[1].count == 3,
              let status = Int(statusLine[1]), (100...599).contains(status) else {
            throw HTTPClientError.malformedResponse("bad status line")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw HTTPClientError.malformedResponse("bad header line")
            }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        return Head(version: String(statusLine[0]), status: status, headers: headers)
    }

    /// Chunks (`hex size[;extension]`, data, CRLF) up to the zero chunk, then trailers, skipped.
    private mutating func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = String(decoding: try readLine(limit: 1024), as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces } ?? ""
            guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16), size >= 0 else {
                throw HTTPClientError.malformedResponse("bad chunk size")
            }
            if size == 0 { break }
            guard body.count + size <= settings.maxBodyBytes else { throw HTTPClientError.responseTooLarge(limit: settings.maxBodyBytes) }
            body += try readExactly(size)
            guard try readLine(limit: 2).isEmpty else { throw HTTPClientError.malformedResponse("chunk longer than its size") }
        }
        var trailerBytes = 0
        while true {
            let trailer = try readLine(limit: settings.maxHeadBytes - trailerBytes)
            if trailer.isEmpty { break }
            trailerBytes += trailer.count + 2
        }
        return body
    }

    /// One line without its CRLF (a bare LF is accepted too), refused beyond `limit` bytes.
    private mutating func readLine(limit: Int) throws -> [UInt8] {
        var scanned = position
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 10) {
                var end = newline
                if end > position && buffer[end - 1] == 13 { end -= 1 }
                guard end - position <= max(limit, 0) else { throw HTTPClientError.responseTooLarge(limit: settings.maxHeadBytes) }
                let line = Array(buffer[position..<end])
                position = newline + 1
                return line
            }
            guard buffer.count - position <= max(limit, 0) + 1 else { throw HTTPClientError.responseTooLarge(limit: settings.maxHeadBytes) }
            scanned = buffer.count
            guard try fill() else { throw HTTPClientError.connectionClosed }
        }
    }

    private mutating func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count - position < count {
            guard try fill(wanting: count - (buffer.count - position)) else { throw HTTPClientError.connectionClosed }
        }
        let bytes = Array(buffer[position..<(position + count)])
        position += count
        return bytes
    }

    private mutating func readToEnd() throws -> [UInt8] {
        // Checked before each read too: the head's reads may already have brought the whole body.
        while true {
            guard buffer.count - position <= settings.maxBodyBytes else { throw HTTPClientError.responseTooLarge(limit: settings.maxBodyBytes) }
            guard try fill() else { break }
        }
        let bytes = Array(buffer[position...])
        position = buffer.count
        return bytes
    }

    /// Reads more from the connection; false at end of stream. Consumed bytes are dropped first, so the
    /// buffer holds at most what is still to be parsed plus one read.
    private mutating func fill(wanting: Int = 0) throws -> Bool {
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        } else if position > 64 * 1024 {
            buffer.removeFirst(position)
            position = 0
        }
        let chunk = try connection.read(limit: min(max(wanting, 64 * 1024), 1024 * 1024), until: deadline)
        if chunk.isEmpty { return false }
        received += chunk.count
        buffer += chunk
        return true
    }
}

extension String {
    var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
