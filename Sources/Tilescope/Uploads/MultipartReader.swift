import Foundation

/// Reads a `multipart/form-data` body as it streams in: the first part that carries a file name
/// goes to the output chunk by chunk; other parts (form fields) are skipped. Memory stays at one
/// chunk plus a delimiter's length, whatever the size of the file.
struct MultipartReader {
    enum State { case preamble, afterDelimiter, headers, content(isFile: Bool), epilogue }

    /// "\r\n--boundary": what ends every part. The body is read as if preceded by "\r\n" so the
    /// first delimiter (at the very start) matches it too.
    private let delimiter: [UInt8]
    private var buffer: [UInt8] = [13, 10]
    private(set) var state = State.preamble
    private(set) var fileName: String?
    private(set) var fileComplete = false
    static let maxHeaderBytes = 16 * 1024

    /// The boundary from a `Content-Type: multipart/form-data; boundary=...` value; nil for any other type.
    static func boundary(contentType: String) -> String? {
        let type = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "multipart/form-data" else { return nil }
        guard let boundary = UploadName.parameters(contentType).first(where: { $0.name == "boundary" })?.value,
              !boundary.isEmpty, boundary.utf8.count <= 70 else { return nil }
        return boundary
    }

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Whether the body ended properly (closing delimiter seen) with a file part.
    var isComplete: Bool {
        if case .epilogue = state { return fileComplete }
        return false
    }

    /// Consumes one chunk; `output` receives file content. Throws a message for a malformed body.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        buffer.append(contentsOf: chunk)
        var consumed = 0
        defer { if consumed > 0 { buffer.removeFirst(consumed) } }
        while true {
            let available = buffer.count - consumed
            switch state {
            case .epilogue:
                consumed = buffer.count
                return
            case .preamble:
                guard let at = find(delimiter, from: consumed) else {
                    consumed = max(consumed, buffer.count - (delimiter.count - 1))
                    return
                }
                consumed = at + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                guard available >= 2 else { return }
                let pair = (buffer[consumed], buffer[consumed + 1])
                if pair == (45, 45) {  // "--": the closing delimiter
                    state = .epilogue
                } else if pair == (13, 10) {
                    state = .headers
                } else {
                    throw UploadError.malformedMultipart("a boundary line is followed by neither CRLF nor \"--\"")
                }
                consumed += 2
            case .headers:
                guard let end = find([13, 10, 13, 10], from: consumed) else {
                    if available > Self.maxHeaderBytes {
                        throw UploadError.malformedMultipart("a part's headers are longer than \(Self.maxHeaderBytes) bytes")
                    }
                    return
                }
                let headers = String(decoding: buffer[consumed..<end], as: UTF8.self)
                consumed = end + 4
                let name = Self.fileName(inPartHeaders: headers)
                let isFile = name != nil && fileName == nil
                if isFile { fileName = name }
                state = .content(isFile: isFile)
            case .content(let isFile):
                if let at = find(delimiter, from: consumed) {
                    if isFile { try emit(consumed..<at, output) ; fileComplete = true }
                    consumed = at + delimiter.count
                    state = .afterDelimiter
                } else {
                    // Keep a tail that could be the start of a delimiter split across chunks.
                    let safeEnd = max(consumed, buffer.count - (delimiter.count - 1))
                    if isFile { try emit(consumed..<safeEnd, output) }
                    consumed = safeEnd
                    return
                }
            }
        }
    }

    private func emit(_ range: Range<Int>, _ output: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !range.isEmpty else { return }
        try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// The first index of `needle` in the buffer at or after `start`: memchr to the candidates for its
    /// first byte, memcmp for the rest, so a large chunk of file content is skipped at memchr's speed.
    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard buffer.count - start >= needle.count else { return nil }
        return buffer.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                let base = haystack.baseAddress!
                var position = start
                let last = haystack.count - pattern.count
                while position <= last {
                    guard let hit = memchr(base + position, Int32(pattern[0]), last - position + 1) else { return nil }
                    let index = UnsafeRawPointer(hit) - base
                    if memcmp(base + index, pattern.baseAddress!, pattern.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }

    /// The file name of a part whose `Content-Disposition` has one (even an empty one counts: a
    /// browser sends `filename=""` for an empty file input, which then fails as an empty upload).
    static func fileName(inPartHeaders headers: String) -> String? {
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" else { continue }
            let value = String(line[line.index(after: colon)...])
            guard UploadName.parameters(value).contains(where: { $0.name == "filename" || $0.name == "filename*" }) else {
                return nil
            }
            return UploadName.fromContentDisposition(value) ?? ""
        }
        return nil
    }
}
