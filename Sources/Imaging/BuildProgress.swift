import CVipsShims
import CVips

/// How far a libvips computation has got: percent done and the estimated seconds left.
public struct BuildProgress: Sendable, Equatable {
    public var percent: Int
    public var etaSeconds: Int

    public init(percent: Int, etaSeconds: Int) {
        self.percent = percent
        self.etaSeconds = etaSeconds
    }
}

/// Forwards an image's libvips "eval" signal to a Swift closure. libvips emits it on the
/// computing thread, thousands of times per image, so the closure sees only percent changes.
/// The time left is estimated here (`ProgressClock`), not taken from libvips, whose estimate
/// is 0 for the first part of a build.
final class ProgressRelay: @unchecked Sendable {
    private let report: @Sendable (BuildProgress) -> Void
    private var lastPercent = -1
    private let clock = ProgressClock()

    init(_ report: @escaping @Sendable (BuildProgress) -> Void) {
        self.report = report
    }

    /// Runs `computation` with the relay connected to `image`'s progress, and disconnects it after.
    /// The image can outlive the computation (libvips's operation cache may hand the same image to a
    /// later one): a handler left connected would call this relay after it is freed, and crash.
    func observing<T>(_ image: VImage, during computation: () throws -> T) rethrows -> T {
        let handler = ts_progress_connect(image.pointer, progressTrampoline, Unmanaged.passUnretained(self).toOpaque())
        defer { ts_progress_disconnect(image.pointer, handler) }
        return try withExtendedLifetime(self) { try computation() }
    }

    fileprivate func receive(percent: Int) {
        guard percent != lastPercent else { return }
        lastPercent = percent
        report(BuildProgress(percent: percent, etaSeconds: clock.estimate(percent: percent)))
    }
}

/// A named C function, not a closure literal: Swift 6 closures formed in an isolated
/// context trap when C calls them from another thread (see docs/platform.md).
private func progressTrampoline(_ context: UnsafeMutableRawPointer?, _ percent: Int32, _ eta: Int32) {
    guard let context else { return }
    Unmanaged<ProgressRelay>.fromOpaque(context).takeUnretainedValue().receive(percent: Int(percent))
}
