import Foundation
import HTTPServer

/// One upload's body on its way to disk: raw bytes, or the file part of a multipart form, appended
/// to a hidden file in the images folder (invisible to scans) that `Uploads.accept` checks and
/// names once the body is complete, or that is deleted if it never is.
final class UploadSink: BodySink, @unchecked Sendable {
    let maxBytes: Int
    let path: String
    private let uploads: Uploads
    private let requestedName: String?
    private let respond: @Sendable (Response) -> Response
    private var descriptor: Int32
    private var multipart: MultipartReader?
    private var written = 0

    /// Creates the hidden file; `respond` finishes every response (the app's common headers).
    init(uploads: Uploads, maxBytes: Int, requestedName: String?, multipartBoundary: String?,
         respond: @escaping @Sendable (Response) -> Response) throws {
        self.uploads = uploads
        self.maxBytes = maxBytes
        self.requestedName = requestedName
        self.respond = respond
        multipart = multipartBoundary.map(MultipartReader.init(boundary:))
        path = "\(uploads.arrivalFolder)/\(LibrarySync.uploadPrefix)\(UUID().uuidString).part"
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw UploadError.cannotWrite("cannot create a file in the images folder: \(String(cString: strerror(errno)))").apiError
        }
    }

    func write(_ chunk: UnsafeRawBufferPointer) -> Response? {
        do {
            if multipart != nil {
                try multipart!.feed(chunk) { try append($0) }
            } else {
                try append(chunk)
            }
            return nil
        } catch {
            return respond(APIError(error).response)
        }
    }

    func finish(_ request: Request) -> Reply {
        let synced = fsync(descriptor) == 0
        close(descriptor)
        descriptor = -1
        let failure: APIError? =
            if !synced { UploadError.cannotWrite("fsync failed: \(String(cString: strerror(errno)))").apiError }
            else if let multipart, !multipart.isComplete {
                multipart.fileName == nil
                    ? APIError.badRequest("the multipart/form-data body has no file part (a field with a filename)")
                    : APIError.badRequest("the multipart/form-data body ended before its closing boundary")
            }
            else if written == 0 { APIError.badRequest("the upload is empty: send the image as the body") }
            else { nil }
        if let failure {
            unlink(path)
            return .now(respond(failure.response))
        }
        let (uploads, path, respond) = (self.uploads, self.path, self.respond)
        let name = multipart?.fileName.flatMap { $0.isEmpty ? nil : $0 } ?? requestedName
        // Reading the header and scanning the folder touch the disk: not on a poll thread.
        return .later {
            defer { unlink(path) }
            do {
                return respond(try uploads.accept(file: path, requestedName: name))
            } catch {
                return respond(APIError(error).response)
            }
        }
    }

    func abort() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw UploadError.cannotWrite(String(cString: strerror(errno)))
            }
            offset += n
        }
        written += bytes.count
    }
}
