import Foundation
import Synchronization

/// Publishes a file whole or not at all: the content goes to a temporary name in the same folder, is
/// flushed as asked, then renamed over the final name, so a reader of that name sees the old file or the
/// whole new one, never a part, even after kill -9. Every failure is thrown (`Failure`, with the step and
/// errno), and the temporary file is removed whenever the rename did not happen.
///
/// The one way the server, the builds and the demo write a file atomically (derived tiles, a level's
/// manifest, the lossless copy, the demo images). In Imaging because it is the lowest module all of them
/// import (the demo has no other); it uses system calls only, so it costs a derived tile no `FileManager`
/// or UUID work on its first request (docs/benchmarks.md).
public enum AtomicFile {
    /// How much of the file must be on disk when `publish` returns.
    public enum Durability: Sendable {
        /// Nothing flushed here. For files whose readers check that they are whole and make them again
        /// otherwise (the JPEG IIIF tiles, `StoredTileCheck`: their fsync was 6.7 % of a cold pass's CPU,
        /// docs/benchmarks.md), and for files the caller flushes another way (a `syncfs` of the folder
        /// they are published with) or not at all (a partial manifest, never taken for a finished one).
        case none
        /// The content is fsynced before the rename: a file renamed with its data still in the page cache
        /// can read back empty after a power cut, under its final name.
        case file
        /// The content before the rename and the folder after it: the new name itself survives a power cut
        /// (for a file whose presence others rely on, a manifest saying a pyramid is complete).
        case fileAndFolder
    }

    /// A step of the publication that failed, with its errno.
    public struct Failure: Error, CustomStringConvertible {
        public enum Step: String, Sendable {
            case create, write, flush, rename
            /// After the rename: the file is in place, but its name may not survive a power cut.
            case flushFolder = "flush the folder of"
        }

        public let path: String
        public let step: Step
        public let code: Int32

        /// The temporary file could not be made because its folder does not exist.
        public var isMissingFolder: Bool { step == .create && code == ENOENT }

        public var description: String { "cannot \(step.rawValue) \(path): \(String(cString: strerror(code)))" }
    }

    /// Writes `bytes` to `path` atomically (`O_EXCL` on the temporary name, writes retried until whole).
    public static func publish(_ bytes: [UInt8], at path: String, durability: Durability) throws {
        try publish(at: path, durability: durability, flushedByWriter: durability != .none) { temporary in
            try writeWhole(bytes, to: temporary, flush: durability != .none)
        }
    }

    /// Runs `write` with a temporary path beside `path` for it to create and fill (libvips saving an image,
    /// say), then publishes that file at `path`. An error `write` throws is rethrown as it is.
    public static func publish(at path: String, durability: Durability,
                               write: (_ temporaryPath: String) throws -> Void) throws {
        try publish(at: path, durability: durability, flushedByWriter: false, write: write)
    }

    private static func publish(at path: String, durability: Durability, flushedByWriter: Bool,
                                write: (String) throws -> Void) throws {
        let temporary = temporaryPath(for: path)
        do {
            try write(temporary)
            if durability != .none && !flushedByWriter { try flush(temporary, as: path) }
            guard rename(temporary, path) == 0 else { throw Failure(path: path, step: .rename, code: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        if durability == .fileAndFolder { try flush(folder(of: path), as: path, step: .flushFolder) }
    }

    /// `folder/.name.{process}-{token}-{count}.partial`: in the same folder, so the rename is atomic; hidden,
    /// so folder scanners that skip dot files (the images folder's) never take it for an image; and a name no
    /// other writer picks (the process id, a random token drawn once, since replicas on other machines may
    /// share the folder and the process id, and a counter).
    public static func temporaryPath(for path: String) -> String {
        let (folder, name) = split(path)
        return "\(folder).\(name).\(getpid())-\(TemporaryNames.token)-\(TemporaryNames.next()).partial"
    }

    /// Whether the folder entry `entry` is a temporary file of one publishing `fileName` (a leftover, once
    /// the process that wrote it is gone).
    public static func isTemporary(_ entry: String, of fileName: String) -> Bool {
        entry.hasPrefix(".\(fileName).") && entry.hasSuffix(".partial")
    }

    /// The folder part with its final slash ("" for a bare name), and the name.
    private static func split(_ path: String) -> (folder: Substring, name: Substring) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path[...]) }
        return (path[...slash], path[path.index(after: slash)...])
    }

    private static func folder(of path: String) -> String {
        let folder = split(path).folder
        return folder.isEmpty ? "." : folder == "/" ? "/" : String(folder.dropLast())
    }

    private static func writeWhole(_ bytes: [UInt8], to temporary: String, flush: Bool) throws {
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(path: temporary, step: .create, code: errno) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            // write never returns 0 for a regular file with bytes left; were it to, ENOSPC says why it stopped.
            guard n > 0 else { throw Failure(path: temporary, step: .write, code: n < 0 ? errno : ENOSPC) }
            written += n
        }
        guard !flush || fsync(descriptor) == 0 else { throw Failure(path: temporary, step: .flush, code: errno) }
    }

    /// fsync of a file or a folder (a folder's fsync makes the names renamed into it durable).
    private static func flush(_ target: String, as path: String, step: Failure.Step = .flush) throws {
        let descriptor = open(target, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, step: step, code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(path: path, step: step, code: errno) }
    }
}

/// The parts of temporary names that keep writers apart. `O_EXCL` (bytes) or the rename would refuse a clash
/// anyway; it would only cost a write.
private enum TemporaryNames {
    static let token = String(UInt32.random(in: .min ... .max), radix: 16)
    private static let counter = Atomic<Int>(0)

    static func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
}
