/// What changed in the images folder since the last look: the periodic rescan asks a
/// `FolderChangeFeed` and scans only what it names, so a 100,000-image folder where nothing
/// happens costs nothing, and a new file costs a look at that file.
public enum FolderChange: Equatable, Sendable {
    case nothing
    /// These file names were created, written, renamed, removed or touched.
    case names(Set<String>)
    /// Unknown (events were lost, or the feed cannot tell names): scan the whole folder.
    case everything
}

/// Reports changes to one folder (`InotifyWatcher` on Linux, `DirectoryStampWatcher` elsewhere).
public protocol FolderChangeFeed: AnyObject, Sendable {
    /// The changes since the previous call (the first call reports those since the feed was made).
    func takeChanges() -> FolderChange
}

/// The feed of a pass whose changes another reader takes (the inotify `FolderWatch`): always nothing,
/// so the pass only looks again at files still settling and saves finished builds.
final class NoChanges: FolderChangeFeed {
    func takeChanges() -> FolderChange { .nothing }
}

/// The feed of an images bucket: a listing says nothing of what changed, so every pass lists it whole.
final class EveryPass: FolderChangeFeed {
    func takeChanges() -> FolderChange { .everything }
}
