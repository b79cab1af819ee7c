#if canImport(Glibc)
import Foundation
import Synchronization

/// Looks at the images folder as soon as inotify reports something, instead of at the next periodic
/// pass: a thread of its own sleeps in `poll` on the watch, lets a burst of events gather for a few
/// milliseconds (a copy's writes, a batch of links), takes them and hands them to `LibrarySync`, the
/// same serial path as the periodic pass, uploads and deletions. What it cannot prove whole is left to
/// the periodic pass (`--rescan`) and the settle wait (`--settle`), which stay as they were.
final class FolderWatch: @unchecked Sendable {
    /// How long a burst of events may gather before it is looked at: short against the 0.2 s goal,
    /// long enough that a copy's stream of writes costs a wake-up per burst, not per event.
    static let gather = 0.01
    private let stopping = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts watching; nothing is taken until `sync` has completed its first full scan, which covers
    /// everything that happened before it (the events stay queued in the kernel until then).
    init(_ watcher: InotifyWatcher, sync: LibrarySync) {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                guard sync.fullScansCompleted > 0 else {
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
                // Bounded, so a stop is seen within a tenth of a second.
                guard watcher.waitForEvents(timeout: 0.1), !stopping.load(ordering: .relaxed) else { continue }
                Thread.sleep(forTimeInterval: Self.gather)
                if sync.sync(watcher.takeEvents()) { Log.info("images folder changed: \(sync.folder)") }
            }
            ended.signal()
        }
        thread.name = "folder-watch"
        thread.start()
    }

    /// Ends the thread and waits for it (at most the look in progress and a tenth of a second).
    func stop() {
        stopping.store(true, ordering: .relaxed)
        ended.wait()
    }
}
#endif
