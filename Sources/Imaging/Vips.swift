import CVipsShims
import CVips
import Foundation
import Synchronization

/// Process-wide libvips start-up and settings.
public enum Vips {
    /// When libvips's format modules (HEIF and AVIF, JPEG XL, PDF, slides, ImageMagick) are loaded. libvips
    /// loads them all as it starts, and that was 26 ms of a 61 ms `vips --version` here, more than the rest
    /// of its start: a server pays it once, but `tilescope build` pays it per process, and a photo's whole
    /// build takes 0.3 s (docs/benchmarks.md). A JPEG is read by libvips itself and needs none of them.
    private enum FormatModules { case atStart, onDemand, loaded }
    private static let formatModules = Mutex(FormatModules.atStart)

    private static let started: Bool = {
        guard ts_vips_init("tilescope") == 0 else { return false }
        // libvips keeps its default thread count (the cores, or VIPS_CONCURRENCY): dzsave
        // builds use those threads, and IIIF renders, one per worker thread, measured no
        // cheaper with VIPS_CONCURRENCY=1 (docs/iiif.md), so nothing here overrides it.
        return true
    }()

    /// Starts libvips once; safe to call from any thread, any number of times.
    public static func start() throws {
        guard started else { throw VipsError.take(or: "libvips failed to start") }
    }

    /// Starts libvips with its format modules left out until a source needs one (`start(toRead:)`), for a process
    /// that only builds the sources it was given, and runs `work` on another core meanwhile: what a process does
    /// before its first build need not wait for libvips. The environment is changed for the start (VIPSHOME) and
    /// put back after both, so that it changes while neither runs. Call it before any other thread uses libvips.
    public static func startWithFormatModulesOnDemand<T: Sendable>(beside work: @Sendable () throws -> T) throws -> T {
        formatModules.withLock { if $0 == .atStart { $0 = .onDemand } }
        let found = Mutex<Result<T, any Error>?>(nil)
        let started = Mutex<Result<Void, any Error>?>(nil)
        ts_vips_hide_modules(1)
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
                let result = Result { try work() }
                found.withLock { $0 = result }
            } else {
                let result = Result { try start() }
                started.withLock { $0 = result }
            }
        }
        ts_vips_hide_modules(0)
        try started.withLock { $0 }?.get()
        guard let result = found.withLock({ $0 }) else { throw VipsError(message: "the work beside libvips's start did not run") }
        return try result.get()
    }

    /// Starts libvips, and loads its format modules first if they were left out and `source` may need one:
    /// anything but a JPEG, told by its first bytes before any loader sniffs it, since with a module missing
    /// libvips would pick another loader (a slide's TIFF read as a plain TIFF, say) rather than fail.
    /// Call it from the one thread that opens the source, before anything else in the process uses libvips.
    public static func start(toRead source: String) throws {
        try start()
        // Loaded under the lock: another thread about to open a source waits until they are in.
        formatModules.withLock { state in
            guard state == .onDemand, !SourceSignature.isJPEG(source) else { return }
            _ = ts_vips_load_modules()
            state = .loaded
        }
    }

    public static var version: String {
        String(cString: vips_version_string())
    }
}

/// A libvips failure carrying libvips's own error text.
public struct VipsError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }

    /// Takes this failure's text from libvips's global error buffer (see `VipsErrorLedger`: the
    /// buffer is shared by all threads, so only the lines that are this operation's are taken).
    /// `source`: the file the failed operation was reading, if any.
    static func take(or fallback: String, source: String? = nil) -> VipsError {
        let text = VipsErrorLedger.take(for: source.map { [$0] } ?? [])
        return VipsError(message: text.isEmpty ? fallback : text)
    }
}
