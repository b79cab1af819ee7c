import Catalog
import Foundation

/// Tells a file that is complete from one still being written into the images folder.
///
/// A file is settled once its size and modification time have stayed the same for `interval`
/// seconds: seen unchanged across scans that far apart, or last modified that long ago (so files
/// already there at start need no wait). Until then the scanner neither lists a new file nor
/// replaces the record of a changed one, so a copy in progress is never built (and failed)
/// truncated. Files the server wrote completely itself (uploads, the demo) are vouched for.
public final class SettlingFiles: @unchecked Sendable {
    public let interval: Double
    private let lock = NSLock()
    /// Per path: the stamp last seen and when (monotonic seconds) it was first seen like that.
    private var sightings: [String: (stamp: SourceFingerprint.Stamp, since: Double)] = [:]
    /// Per path: a stamp known to be a complete file.
    private var vouched: [String: SourceFingerprint.Stamp] = [:]

    public init(interval: Double) {
        self.interval = max(0, interval)
    }

    /// Whether the file, as `stamp` shows it now, may be built.
    public func isSettled(_ path: String, _ stamp: SourceFingerprint.Stamp) -> Bool {
        guard interval > 0 else { return true }
        let now = ProcessInfo.processInfo.systemUptime
        return lock.withLock {
            if vouched[path] == stamp { return true }
            let age = Date().timeIntervalSince1970 - Double(stamp.modifiedNanoseconds) / 1e9
            if age >= interval { return true }
            // A modification time in the future (another machine's clock): rely on sightings alone.
            guard let seen = sightings[path], seen.stamp == stamp else {
                sightings[path] = (stamp, now)
                return false
            }
            return now - seen.since >= interval
        }
    }

    /// Marks the file as complete as it is now (the server wrote it whole).
    public func vouch(for path: String) {
        guard let stamp = SourceFingerprint.Stamp.read(path) else { return }
        vouch(for: path, as: stamp)
    }

    /// Marks the file as complete while `stamp` is what it shows (proven whole: `WriterCheck`).
    func vouch(for path: String, as stamp: SourceFingerprint.Stamp) {
        guard interval > 0 else { return }  // everything is settled: nothing to remember
        lock.withLock { vouched[path] = stamp }
    }

    /// Vouches for every source file in `folder` (the demo images this process wrote).
    public func vouchForSources(in folder: String) {
        for name in (try? SourceFolder.listSources(in: folder)) ?? [] {
            vouch(for: (folder as NSString).appendingPathComponent(name))
        }
    }

    /// Forgets files no longer in the folder (`names` are the ones in it), so the tables stay as
    /// small as the folder. Takes the names, not their paths: a set of 100,000 paths would be as many
    /// strings made for a check of the few files these tables hold.
    func keepOnly(names: Set<String>, in folder: String) {
        func listed(_ path: String) -> Bool {
            let name = (path as NSString).lastPathComponent
            return names.contains(name) && (folder as NSString).appendingPathComponent(name) == path
        }
        lock.withLock {
            sightings = sightings.filter { listed($0.key) }
            vouched = vouched.filter { listed($0.key) }
        }
    }
}
