import CVipsShims
import CVips
import Foundation

/// Process-wide libvips start-up and settings.
public enum Vips {
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
