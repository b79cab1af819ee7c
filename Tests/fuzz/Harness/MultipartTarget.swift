import Foundation
@testable import Tilescope

/// Multipart upload bodies: the first line is the `Content-Type` header, the rest the body. The body is
/// read twice, all at once and in chunks of a size the input chooses (1 to 64 bytes, the first byte of
/// the body), as a network delivers it; both readings must agree on the file name, the file bytes,
/// completeness and whether the body is malformed. The file bytes are always a contiguous part of the body.
enum MultipartTarget {
    static func run(_ bytes: [UInt8]) {
        guard let newline = bytes.firstIndex(of: 10) else { return }
        let contentType = String(decoding: bytes[..<newline], as: UTF8.self)
        let body = Array(bytes[(newline + 1)...])
        for (name, _) in UploadName.parameters(contentType) {
            FuzzCheck.require(name == name.lowercased(), "parameter name \(name) not lower-cased")
        }
        _ = UploadName.fromContentDisposition(contentType)
        _ = UploadName.stem(of: contentType)
        guard let boundary = MultipartReader.boundary(contentType: contentType) else { return }
        let whole = read(body, boundary: boundary, chunkSize: max(body.count, 1))
        let chunkSize = Int(body.first ?? 0) % 64 + 1
        let chunked = read(body, boundary: boundary, chunkSize: chunkSize)
        FuzzCheck.require(whole == chunked, "whole \(whole) differs from chunks of \(chunkSize): \(chunked)")
        if !whole.file.isEmpty {
            FuzzCheck.require(Data(body).range(of: Data(whole.file)) != nil, "file bytes are not a part of the body")
        }
    }

    struct Reading: Equatable {
        var fileName: String?
        var file: [UInt8] = []
        var complete = false
        var malformed = false
    }

    private static func read(_ body: [UInt8], boundary: String, chunkSize: Int) -> Reading {
        var reader = MultipartReader(boundary: boundary)
        var reading = Reading()
        var start = 0
        while start < body.count {
            let end = min(body.count, start + chunkSize)
            do {
                try body[start..<end].withUnsafeBytes { chunk in
                    try reader.feed(chunk) { reading.file.append(contentsOf: $0) }
                }
            } catch {
                reading.malformed = true
                break
            }
            start = end
        }
        reading.fileName = reader.fileName
        reading.complete = reader.isComplete
        return reading
    }
}
