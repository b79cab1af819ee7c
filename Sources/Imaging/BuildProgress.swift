import CShims
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

    /// Connects to `image`; the relay must outlive the computation (the caller keeps it).
    func attach(to image: VImage) {
        ts_progress_connect(image.pointer, progressTrampoline, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func receive(percent: Int) {
        guard percent != lastPercent else { return }
        lastPercent = percent
        report(BuildProgress(percent: percent, etaSeconds: clock.estimate(percent: percent)))
    }
}

/// A named C function, not a closure literal: Swift 6 closures formed in an isolated
/// context trap when C calls them from another thread (see PLATFORM.md).
private func progressTrampoline(_ context: UnsafeMutableRawPointer?, _ percent: Int32, _ eta: Int32) {
    guard let context else { return }
    Unmanaged<ProgressRelay>.fromOpaque(context).takeUnretainedValue().receive(percent: Int(percent))
}
