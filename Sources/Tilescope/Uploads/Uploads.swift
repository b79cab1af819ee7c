import Catalog
import Foundation
import HTTPServer
import Imaging
import ObjectStore

/// Adding and deleting images over HTTP: who may (the admin token), how large an upload may be,
/// and how an accepted upload becomes an ordinary source file in the images folder, which the
/// folder scan then builds like any other (and every replica sees).
public final class Uploads: Sendable {
    let token: AdminToken?
    let maxBytes: Int
    let maxPixels: Int
    let sync: LibrarySync
    let library: ImageLibrary
    /// Where a bucket's uploads arrive before they are checked and written to the bucket (the data folder's
    /// `source-staging/`); nil: in the images folder, hidden, as always.
    let stagingFolder: String?

    public init(token: AdminToken?, maxBytes: Int, maxPixels: Int, sync: LibrarySync, library: ImageLibrary,
                stagingFolder: String? = nil) {
        self.stagingFolder = stagingFolder
        self.token = token
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.sync = sync
        self.library = library
    }

    var folder: String { sync.folder }

    /// Where an upload's body is written as it arrives.
    var arrivalFolder: String { stagingFolder ?? folder }

    /// 403 when uploads are off (no token configured), 401 without the right bearer token; `signedInAdmin`:
    /// an admin user signed in (CSRF already checked) may do what the token allows, token or not.
    func authorize(_ request: Request, signedInAdmin: Bool = false) throws {
        guard !signedInAdmin else {
            guard sync.scanner.bucket != nil || Self.canWrite(folder) else {
                throw APIError(403, "images_folder_read_only", Self.readOnlyMessage)
            }
            return
        }
        guard let token else {
            throw APIError(403, "uploads_disabled",
                           "uploads and deletions are disabled: start the server with TILESCOPE_ADMIN_TOKEN set to a secret, then send it as 'Authorization: Bearer <secret>'")
        }
        guard token.accepts(authorization: request.header("authorization")) else {
            throw APIError(401, "unauthorized", "send 'Authorization: Bearer <token>' with the server's TILESCOPE_ADMIN_TOKEN",
                           headers: [("WWW-Authenticate", "Bearer realm=\"tilescope\"")])
        }
        guard sync.scanner.bucket != nil || Self.canWrite(folder) else {
            throw APIError(403, "images_folder_read_only", Self.readOnlyMessage)
        }
    }

    /// Uploads land in the images folder (every replica scans it) and deletions remove files from it, so
    /// a read-only mount of it turns both off: said at start and in each refusal, not as a 507 mid-body.
    static let readOnlyMessage = "uploads and deletions are off: the server cannot write the images folder (a read-only mount, or its permissions); make it writable to allow them"

    /// Whether this process may create files in `folder`: `access` answers EROFS for a read-only mount
    /// even to root, whom permission bits do not stop.
    static func canWrite(_ folder: String) -> Bool {
        access(folder, W_OK) == 0
    }

    /// Decides, from the headers alone, whether to take an upload's body: a sink that streams it to disk.
    func begin(_ request: Request, signedInAdmin: Bool = false, respond: @escaping @Sendable (Response) -> Response) throws -> UploadSink {
        try authorize(request, signedInAdmin: signedInAdmin)
        var boundary: String?
        if let type = request.header("content-type"), type.lowercased().hasPrefix("multipart/") {
            guard let found = MultipartReader.boundary(contentType: type) else {
                throw APIError.badRequest("a multipart upload must be multipart/form-data with a boundary of 1 to 70 characters")
            }
            boundary = found
        }
        let requested = try request.header("content-disposition").flatMap(UploadName.fromContentDisposition) ?? request.argument("name")
        return try UploadSink(uploads: self, maxBytes: maxBytes, requestedName: requested,
                              multipartBoundary: boundary, respond: respond)
    }

    /// Checks a complete upload's header and places it in the images folder: 202 with its job, or
    /// 415 (not an accepted image) or 422 (too many pixels). Only the header is read, so a small
    /// file declaring a gigantic image is refused without decoding anything.
    func accept(file: String, requestedName: String?) throws -> Response {
        guard let loader = ImageHeader.loader(of: file) else {
            throw APIError(415, "unsupported_media_type",
                           "the upload is not an image libvips recognises; accepted formats: \(UploadFormat.acceptedNames)")
        }
        guard let format = UploadFormat(loader: loader) else {
            throw APIError(415, "unsupported_media_type",
                           "the upload is read by libvips's \(loader), which uploads do not accept; accepted formats: \(UploadFormat.acceptedNames)")
        }
        let header: ImageHeader
        do {
            header = try ImageHeader.read(file, strict: true)
        } catch {
            let text = FailureReason.withoutPaths("\(error)", sourcePath: file, fileName: "the upload")  // no server path
            throw APIError(415, "unsupported_media_type", "the upload looks like \(format.name) but libvips cannot read it: \(text)")
        }
        // The same limits as for files placed in the images folder (`SourceLimits`).
        switch SourceLimits(maxPixels: maxPixels).breach(of: header) {
        case nil: break
        case .empty(let width, let height)?:
            throw APIError(415, "unsupported_media_type", "the upload declares an empty image (\(width)x\(height))")
        case let breach?:
            throw APIError(422, "too_many_pixels", "the image is refused: \(breach)")
        }
        let name = try place(file, requestedName: requestedName, format: format)
        guard let record = library.all.first(where: { $0.fileName == name }) else {
            throw APIError(500, "internal", "the upload was stored as \(name) but the folder scan did not list it")
        }
        var response = JSON.response(JobJSON(record), status: 202)
        response.setHeader("Location", JobJSON.path(record.id))
        return response
    }

    /// Deletes the image on purpose (token required): source, pyramids and rating.
    func delete(_ id: String, _ request: Request) throws -> Response {
        try authorize(request)
        try sync.delete(id)
        return Response(status: 204)
    }

    /// Links the file into the images folder under a free name (never replacing a file: `link`
    /// fails rather than overwrite), then scans so the new image and its job exist before 202.
    private func place(_ file: String, requestedName: String?, format: UploadFormat) throws -> String {
        if let bucket = sync.scanner.bucket { return try place(file, in: bucket, requestedName: requestedName, format: format) }
        return try sync.changingFolder {
            for _ in 0..<5 {
                let existing = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                let name = UploadName.choose(requested: requestedName, format: format, existing: existing)
                if link(file, "\(folder)/\(name)") == 0 {
                    Self.syncFolder(folder)
                    // Complete by construction (linked once whole): built without waiting to settle.
                    sync.scanner.settling.vouch(for: "\(folder)/\(name)")
                    return name
                }
                guard errno == EEXIST else { break }  // taken meanwhile (another replica): choose again
            }
            throw UploadError.cannotWrite("cannot link the upload into \(folder): \(String(cString: strerror(errno)))").apiError
        }
    }

    /// Writes the file into the images bucket under a free name, streamed from the disk, never replacing an
    /// object (`If-None-Match: *`: a name another replica took meanwhile is chosen again), then lists the
    /// bucket so the new image and its job exist before 202.
    private func place(_ file: String, in bucket: BucketSources, requestedName: String?, format: UploadFormat) throws -> String {
        try sync.changingFolder {
            var taken = Set(library.all.map(\.fileName))
            for _ in 0..<5 {
                let name = UploadName.choose(requested: requestedName, format: format, existing: taken)
                do {
                    switch try bucket.client.putObject(bucket.key(of: name), file: file, ifNoneMatch: true) {
                    case .stored:
                        bucket.listWholeNext()  // its name may sort before the last key listed
                        return name
                    case .alreadyExists: taken.insert(name)
                    }
                } catch let error as S3Error {
                    throw APIError(imagesBucket: error, doing: "the upload")
                }
            }
            throw UploadError.cannotWrite("no free name for the upload in \(bucket.location) after 5 tries").apiError
        }
    }

    /// Makes the new directory entry durable, so an acknowledged upload survives a crash.
    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
