import Foundation

/// Writes a file derived from a pyramid (an IIIF tile, a WebP or AVIF Deep Zoom tile) into its
/// version's folder so that every later request can `sendfile` it.
///
/// Atomic and durable: the bytes go to a temporary file, are fsynced (unless the readers check the file,
/// `StoredTileCheck`), then renamed into place, so a
/// reader sees the whole file or none (a file renamed with its data still in the page cache can be
/// empty after a power cut, and would then be served with a year of caching). fsync costs about
/// 0.2 ms here, once per file. Version-safe: only inside an existing version folder; when the source
/// has changed and its old folder is gone, nothing is written, so no old version's pixels are ever
/// stored where they could be served again. A failure to store only costs the next request a render.
enum DerivedFile {
    /// `synced: false` skips the fsync, for files whose readers check that they are whole
    /// (`StoredTileCheck`) and remake them otherwise.
    static func publish(_ bytes: [UInt8], at path: String, versionFolder: String, synced: Bool = true) {
        var info = stat()
        guard stat(versionFolder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return }
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = "\(path).\(UUID().uuidString.prefix(8)).tmp"
        if (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
           write(bytes, to: temporary, synced: synced) {
            if rename(temporary, path) != 0 { unlink(temporary) }
        } else {
            unlink(temporary)
        }
    }

    private static func write(_ bytes: [UInt8], to path: String, synced: Bool) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return !synced || fsync(descriptor) == 0
    }
}
