import Foundation

/// Objects to and from local files without holding them in memory: a PUT whose body is read from the file as
/// it is sent, and a download made of ranged GETs of a bounded size each, appended to the file.
extension S3Client {
    /// Writes the file at `path` under `key`, its bytes sent as read (`UNSIGNED-PAYLOAD`: hashing first
    /// would read the file twice). `ifNoneMatch` as `putObject`'s: `.alreadyExists` when the key exists.
    public func putObject(_ key: String, file path: String, contentType: String? = nil,
                          ifNoneMatch: Bool = false) throws -> S3PutResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw S3Error.invalidArgument("cannot open the file to upload: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw S3Error.invalidArgument("the file to upload is not a regular file")
        }
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        if ifNoneMatch { headers.append(("If-None-Match", "*")) }
        let response = try perform("PUT", key: key, headers: headers,
                                   bodyFile: HTTPFileBody(descriptor: descriptor, length: Int(info.st_size)),
                                   payloadHash: SigV4Signer.unsignedPayload)
        if ifNoneMatch && response.status == 412 { return .alreadyExists }
        guard (200..<300).contains(response.status) else { throw S3Error.from(response) }
        return .stored(etag: response.header("etag"))
    }

    /// Why a download stopped short of a whole, unchanged object.
    public enum DownloadRefusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The object is larger than the caller allows (known before its bytes are read, from the first answer).
        case tooLarge(size: Int, limit: Int)
        /// Its ETag changed between two ranges (or differs from the one expected): a new version is being
        /// written; the bytes so far are of the old one.
        case changed
        /// The local file could not be written (a full disk, say): the machine's trouble, not the object's.
        case cannotWrite(String)

        public var description: String {
            switch self {
            case .tooLarge(let size, let limit): "the object has \(size) bytes, more than the \(limit) allowed"
            case .changed: "the object changed while it was read"
            case .cannotWrite(let why): "cannot write the download: \(why)"
            }
        }
    }

    /// Reads `key` into the file `descriptor` (from its start), `rangeBytes` at a time with ranged GETs, each
    /// checked to carry the same ETag (the first against `expectedETag` when given), so the file holds one version
    /// whole or the call throws. At most `maxBytes`: a larger object is refused from its first answer's
    /// `Content-Range`. Memory: one range. Returns what the store said of the object.
    public func download(_ key: String, into descriptor: Int32, expectedETag: String? = nil,
                         maxBytes: Int, rangeBytes: Int = 8 << 20) throws -> S3ObjectInfo {
        let step = min(max(rangeBytes, 1 << 16), settings.http.maxBodyBytes)
        var offset = 0
        var whole: S3ObjectInfo?
        while whole == nil || offset < whole!.size {
            let part: S3Object
            do {
                part = try getObject(key, range: offset...(offset + step - 1))
            } catch let error as S3Error where error.status == 416 && offset == 0 {
                // An empty object has no byte 0: S3 answers 416 to any range of it.
                let info = try headObject(key)
                guard info.size == 0 else { throw error }
                try Self.check(info, expectedETag: expectedETag, maxBytes: maxBytes)
                return info
            }
            // A store that ignores Range sends 200 with the whole object: bounded by maxBodyBytes, still correct.
            let info = part.info
            guard info.size >= 0, info.size <= maxBytes else { throw DownloadRefusal.tooLarge(size: info.size, limit: maxBytes) }
            if let first = whole {
                guard info.etag == first.etag, info.size == first.size else { throw DownloadRefusal.changed }
            } else {
                try Self.check(info, expectedETag: expectedETag, maxBytes: maxBytes)
                whole = info
            }
            let start = part.range?.lowerBound ?? 0
            guard start == offset, !part.body.isEmpty || info.size == 0, start + part.body.count <= info.size else {
                throw S3Error.malformedResponse("a range answer that does not continue the download at byte \(offset)")
            }
            try Self.write(part.body, to: descriptor, at: offset)
            offset += part.body.count
            if info.size == 0 { break }
        }
        return whole!
    }

    private static func check(_ info: S3ObjectInfo, expectedETag: String?, maxBytes: Int) throws {
        guard info.size <= maxBytes else { throw DownloadRefusal.tooLarge(size: info.size, limit: maxBytes) }
        if let expectedETag, info.etag != expectedETag { throw DownloadRefusal.changed }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int) throws {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw DownloadRefusal.cannotWrite(String(cString: strerror(errno))) }
            done += count
        }
    }
}
