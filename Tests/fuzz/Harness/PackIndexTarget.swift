import Foundation
@testable import Tilescope

/// `pack-index`: an object store's pack index (`PackIndex`, what a reader of a packed version reads before any tile),
/// damaged or hostile. Besides not trapping: an index parsed has every entry's range of at least one byte inside a
/// pack it has, every path a tile's and every pack name of the shape written, within the limits; and written again it
/// parses to the same index (the format says one thing one way).
enum PackIndexTarget {
    static func run(_ bytes: [UInt8]) {
        guard let index = try? PackIndex.parse(bytes) else { return }
        FuzzCheck.require(index.packs.count <= PackIndex.maxPacks, "\(index.packs.count) packs")
        FuzzCheck.require(index.entries.count <= PackIndex.maxEntries, "\(index.entries.count) entries")
        for pack in index.packs {
            FuzzCheck.require(PackIndex.isPackName(Array(pack.name.utf8)), "a pack named \(pack.name)")
            FuzzCheck.require(pack.size >= 1 && pack.size <= PackIndex.maxPackBytes, "a pack of \(pack.size) bytes")
        }
        for (path, entry) in index.entries {
            FuzzCheck.require(PackIndex.isPath(Array(path.utf8)) && !path.split(separator: "/").contains(".."), "a path \(path)")
            FuzzCheck.require(entry.pack >= 0 && entry.pack < index.packs.count, "pack \(entry.pack)")
            FuzzCheck.require(entry.length >= 1 && entry.offset >= 0, "\(entry)")
            FuzzCheck.require(entry.range.upperBound < index.packs[entry.pack].size, "\(entry) past its pack")
        }
        FuzzCheck.require((try? PackIndex.parse(index.encoded())) == index, "the index written again reads otherwise")
    }
}
