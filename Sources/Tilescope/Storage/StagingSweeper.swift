import Foundation

/// Removes a store's finished staging folders on a thread of its own, so a build is done when its last
/// level is published, not after its leftovers are deleted.
///
/// What a finished build leaves in staging (the full pass's copy of the coarse levels, which the base
/// already published, and the emptied folders) is a few dozen unlinks and rmdirs that wait on the file
/// system's journal: 36 to 180 ms a 4032x3024 photo on the shared machine, a third of its build beside
/// dzsave's (docs/benchmarks.md, issue 43). Nothing reads those folders (staging is never served), and a
/// process that dies before they are gone leaves them to the next start's wipe of free staging folders.
final class StagingSweeper: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [String] = []
    private var running = false

    /// Queues `folder` for removal; starts the thread if none runs.
    func sweep(_ folder: String) {
        condition.lock()
        waiting.append(folder)
        let start = !running
        running = true
        condition.unlock()
        guard start else { return }
        let thread = Thread { [self] in run() }
        thread.name = "staging-sweeper"
        thread.start()
    }

    /// Returns once every queued folder is removed (the store's owner folder goes after this).
    func finish() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while let folder = waiting.first {
            waiting.removeFirst()
            condition.unlock()
            try? FileManager.default.removeItem(atPath: folder)
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
