import Synchronization

/// Stores newly rendered IIIF tile files behind the reply: the first request for a tile is
/// answered as soon as its bytes are encoded, and the file is written (renamed into place, fsynced
/// unless its readers check it: `DerivedFile.publish`, `StoredTileCheck`) afterwards on a few writer threads
/// (a `WorkQueue`).
///
/// Why: the fsync that makes a tile file safe to serve for a year after a power cut took 10 to 20 ms
/// on this machine's disk under load, ten times the decode and encode, and the first pass of a
/// viewer over new tiles waited for it on every tile. Until its file is in place, a tile being written is
/// answered from its bytes here (`Server-Timing: tile;desc=storing`), so it is still rendered once.
/// At most `limit` tiles wait; beyond that (or once the queue is shut down) a tile is written before its
/// reply, as before, so memory stays bounded when the disk is slower than the renders.
final class IIIFTileWrites: Sendable {
    private let pending = Mutex([String: [UInt8]]())
    let queue: WorkQueue
    let limit: Int

    init(writers: Int = 4, limit: Int = 256) {
        self.limit = max(0, limit)
        queue = WorkQueue(name: "iiif-tile-writes", threads: writers, capacity: max(1, limit))
    }

    /// Whether a tile published now would be written behind the reply (not before it): fewer than `limit` wait.
    var hasRoom: Bool {
        pending.withLock { $0.count < limit }
    }

    /// The bytes of the tile file at `path` while it is being written.
    func bytes(at path: String) -> [UInt8]? {
        pending.withLock { $0[path] }
    }

    /// Writes `bytes` to `path` inside `versionFolder`, later if there is room to wait, else now;
    /// `synced: false` for files whose readers check them (`StoredTileCheck`).
    func publish(_ bytes: [UInt8], at path: String, versionFolder: String, synced: Bool = true) {
        let queued = pending.withLock { waiting -> Bool in
            guard waiting[path] == nil else { return false }  // the same tile, already on its way
            guard waiting.count < limit else { return false }
            waiting[path] = bytes
            return true
        }
        guard queued else {
            if self.bytes(at: path) == nil { DerivedFile.publish(bytes, at: path, versionFolder: versionFolder, synced: synced) }
            return
        }
        let accepted = queue.submit { [self] in
            DerivedFile.publish(bytes, at: path, versionFolder: versionFolder, synced: synced)
            _ = self.pending.withLock { $0.removeValue(forKey: path) }
        }
        guard accepted else {
            // Full for an instant (a tile done here and not yet in the queue's counts) or shut down: now.
            DerivedFile.publish(bytes, at: path, versionFolder: versionFolder, synced: synced)
            _ = self.pending.withLock { $0.removeValue(forKey: path) }
            return
        }
    }

    /// Waits until every tile queued so far is written, up to `seconds` (tests); false if some were not. A
    /// stop waits only a moment (`TilescopeService.stop`): a tile whose write is lost is rendered again by its
    /// next request.
    func drain(seconds: Double = 120) -> Bool {
        queue.waitUntilIdle(seconds: seconds)
    }
}
