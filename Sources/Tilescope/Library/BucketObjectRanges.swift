import Foundation
import Synchronization
import Catalog
import Imaging
import ObjectStore

/// A bucket source served from its own levels, read by ranges (`ByteRanges`), never downloaded whole: aligned
/// blocks of `blockBytes` fetched with ranged GETs, each checked to be of the version listed (its ETag), and kept
/// in the bounded `RangeBlocks` every such object shares. The TIFF's directories, a stored tile's bytes and the
/// tiles libvips decodes under a region are all read through it.
final class BucketObjectRanges: ByteRanges, @unchecked Sendable {
    let bucket: BucketSources
    let key: String
    let size: UInt64
    let etag: String
    let blocks: RangeBlocks

    /// The last failed fetch and when (`DispatchTime` nanoseconds): libvips hears only that a read failed, so the
    /// answer to a render it failed asks here whether the store was the cause (`DirectSources.storeFailure`).
    private let lastFailure = Mutex<(error: S3Error, at: UInt64)?>(nil)

    /// The store's failure of a fetch made at or after `since`, if any.
    func storeFailure(since: UInt64) -> S3Error? {
        lastFailure.withLock { $0.flatMap { $0.at >= since ? $0.error : nil } }
    }

    /// One ranged GET: a few stored tiles of a pyramid (a 256-pixel JPEG tile is 10-40 KB), so a view's tiles near
    /// one another come in one request; small enough that a tile never costs a large transfer.
    static let blockBytes = 128 << 10

    init(bucket: BucketSources, key: String, size: UInt64, etag: String, blocks: RangeBlocks) {
        self.bucket = bucket
        self.key = key
        self.size = size
        self.etag = etag
        self.blocks = blocks
    }

    /// The object of `record`'s version by ranges: its size and ETag from one HEAD, which must be the version
    /// listed (else `PartPublisher.SourceChanged`).
    static func open(_ record: ImageRecord, in bucket: BucketSources, blocks: RangeBlocks) throws -> BucketObjectRanges {
        let key = bucket.key(of: record.fileName)
        let info = try bucket.client.headObject(key)
        guard let etag = info.etag, info.size > 0,
              SourceFingerprint.object(size: info.size, etag: etag).value == record.version else {
            throw PartPublisher.SourceChanged()
        }
        return BucketObjectRanges(bucket: bucket, key: key, size: UInt64(info.size), etag: etag, blocks: blocks)
    }

    func read(into buffer: UnsafeMutableRawPointer, at offset: UInt64, count: Int) throws -> Int {
        guard offset < size, count > 0 else { return 0 }
        let index = offset / UInt64(Self.blockBytes)
        let block = try blocks.block(RangeBlocks.Key(object: key, etag: etag, index: index)) { try fetch(index) }
        let within = Int(offset - index * UInt64(Self.blockBytes))
        let taken = min(count, block.count - within)
        guard taken > 0 else { return 0 }
        block.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!.advanced(by: within), byteCount: taken) }
        return taken
    }

    /// Block `index` from the store, checked to be of this version and whole.
    private func fetch(_ index: UInt64) throws -> [UInt8] {
        let start = index * UInt64(Self.blockBytes)
        let end = min(size, start + UInt64(Self.blockBytes)) - 1
        let object: S3Object
        do {
            object = try bucket.client.getObject(key, range: Int(start)...Int(end))
        } catch {
            bucket.countRange(bytes: 0, failed: true)
            if let error = error as? S3Error {
                lastFailure.withLock { $0 = (error, DispatchTime.now().uptimeNanoseconds) }
            }
            throw error
        }
        bucket.countRange(bytes: object.body.count, failed: false)
        guard object.info.etag == etag, object.info.size == Int(size) else { throw PartPublisher.SourceChanged() }
        guard object.body.count == Int(end - start + 1) else {
            throw S3Error.malformedResponse("a range of \(object.body.count) bytes where \(end - start + 1) were asked")
        }
        return object.body
    }
}

/// The blocks of bucket objects read by ranges, bounded in bytes (the least recently read go first), shared by every
/// source served from a bucket. Fetches of one block by several threads at once are made once (the others wait).
final class RangeBlocks: @unchecked Sendable {
    struct Key: Hashable, Sendable {
        let object: String
        let etag: String
        let index: UInt64
    }

    let maximumBytes: Int
    private let condition = NSCondition()
    private var blocks: [Key: (bytes: [UInt8], used: Int)] = [:]
    private var fetching: Set<Key> = []
    private var bytes = 0
    private var uses = 0

    /// 64 MiB by default: the blocks of a few hundred views' worth of tiles.
    init(maximumBytes: Int = 64 << 20) {
        self.maximumBytes = max(maximumBytes, BucketObjectRanges.blockBytes)
    }

    var heldBytes: Int { condition.withLock { bytes } }

    func block(_ key: Key, fetch: () throws -> [UInt8]) throws -> [UInt8] {
        condition.lock()
        while true {
            if var entry = blocks[key] {
                uses += 1
                entry.used = uses
                blocks[key] = entry
                condition.unlock()
                return entry.bytes
            }
            guard fetching.contains(key) else { break }
            condition.wait()
        }
        fetching.insert(key)
        condition.unlock()
        let fetched: [UInt8]
        do {
            fetched = try fetch()
        } catch {
            condition.withLock { fetching.remove(key); condition.broadcast() }
            throw error
        }
        condition.withLock {
            fetching.remove(key)
            uses += 1
            blocks[key] = (fetched, uses)
            bytes += fetched.count
            while bytes > maximumBytes, let oldest = blocks.min(by: { $0.value.used < $1.value.used }) {
                bytes -= oldest.value.bytes.count
                blocks[oldest.key] = nil
            }
            condition.broadcast()
        }
        return fetched
    }
}
