import Foundation
import Imaging

/// A build's progress as clients see it: what is left to do, not only libvips's full pass.
///
/// libvips reports its pass over the source, which ends at 100 before the finer levels are
/// published (each a rename and, for the last, a flush of the disk): an image showed "building" at
/// 100% with levels still missing. Here the pass counts for 90% and the levels published for the
/// other 10% (all of them: the base comes early for a JPEG, the rest at the end), and the figure
/// stays below 100 until the image is ready. Fed from the build's thread and libvips's.
final class BuildShare: @unchecked Sendable {  // @unchecked: the state is behind `lock`
    private let lock = NSLock()
    private var pass = BuildProgress(percent: 0, etaSeconds: 0)
    private var levelsReady = 0
    private var levelCount = 1

    /// The figure after libvips's pass reports `progress`.
    func passed(_ progress: BuildProgress) -> BuildProgress {
        lock.withLock {
            pass = progress
            return current
        }
    }

    /// The figure once levels `0..<ready` of `count` are published.
    func published(levels ready: Int, of count: Int) -> BuildProgress {
        lock.withLock {
            levelsReady = max(levelsReady, ready)
            levelCount = max(1, count)
            return current
        }
    }

    private var current: BuildProgress {
        Self.percent(pass: pass, levelsReady: levelsReady, levelCount: levelCount)
    }

    /// 90% for the pass, 10% for the levels published; never 100 (that is "ready").
    static func percent(pass: BuildProgress, levelsReady: Int, levelCount: Int) -> BuildProgress {
        let passShare = Double(min(max(pass.percent, 0), 100)) * 0.9
        let levelShare = 10 * Double(min(max(levelsReady, 0), max(levelCount, 1))) / Double(max(levelCount, 1))
        let percent = min(99, Int(passShare + levelShare))
        // Once the pass is done, what is left is publishing: a second or so, never "no time at all".
        let eta = pass.percent >= 100 ? 1 : pass.etaSeconds
        return BuildProgress(percent: percent, etaSeconds: eta)
    }
}
