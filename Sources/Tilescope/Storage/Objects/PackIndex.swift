import Foundation

/// Where each packed file of a version lies in the store: a pack object (`packs/{upload}-{n}.pack`) and a byte range of
/// it. Written by `PackWriter` once a version's packs are all stored, as `packs/{upload}.index`, which the version's
/// `pyramid.json` names (`PyramidManifest.packIndex`); a reader trusts it only under a published `pyramid.json`.
///
/// Binary and little-endian, so that 5,733 entries (a 16384² pyramid) parse in about a millisecond:
///
///     "TSPACKS1"                                          8 bytes
///     UInt32 pack count, then per pack:  UInt16 name length, the name (ASCII), UInt64 size in bytes
///     UInt32 entry count, then per entry: UInt16 path length, the path (ASCII, inside the version),
///                                         UInt32 pack, UInt64 offset, UInt32 length
///
/// Every number is checked before any arithmetic, so a hostile or damaged index is refused with the reason
/// (`Malformed`), never a trap: counts within their limits and within the bytes that follow, names and paths of the
/// shapes written here (a path is a tile's: `image_files/...`, no empty or all-dots segment, printable ASCII), a pack
/// number below the count, a range of at least one byte inside its pack, a path given once, no byte left over.
struct PackIndex: Sendable, Equatable {
    struct Pack: Sendable, Equatable {
        /// The object's name inside the version (`packs/...`).
        let name: String
        let size: Int
    }

    struct Entry: Sendable, Equatable {
        let pack: Int
        let offset: Int
        let length: Int

        /// The inclusive byte range of the file in its pack (a Range header's); never empty, checked when parsed.
        var range: ClosedRange<Int> { offset...(offset + length - 1) }
    }

    let packs: [Pack]
    /// By path inside the version (`image_files/12/3_4.jpeg`).
    let entries: [String: Entry]

    struct Malformed: Error, CustomStringConvertible {
        let why: String
        var description: String { "malformed pack index: \(why)" }
    }

    static let magic = Array("TSPACKS1".utf8)
    static let maxPacks = 65_536
    /// A pyramid of 2,000,000 tiles is 160,000 pixels a side: far past `--max-pixels`' ceiling.
    static let maxEntries = 2_000_000
    /// S3's largest single PUT.
    static let maxPackBytes = 5 << 30
    static let maxNameBytes = 255
    static let maxPathBytes = 1024
    /// The largest index read (`maxEntries` entries of ordinary paths fit).
    static let maxIndexBytes = 128 << 20
    /// The folder of a version that packs and their index are named under.
    static let folder = "packs"
    /// The only top-level folder whose files are packed: the tiles (`PyramidBuilder.tilesFolderName`).
    static let packedFolder = "image_files"

    init(packs: [Pack], entries: [String: Entry]) {
        self.packs = packs
        self.entries = entries
    }

    // MARK: Writing

    /// The index's bytes, entries in pack and offset order (the order they were written in).
    func encoded() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(16 + packs.count * 48 + entries.count * 48)
        Self.append(UInt32(packs.count), to: &out)
        for pack in packs {
            Self.append(UInt16(pack.name.utf8.count), to: &out)
            out += pack.name.utf8
            Self.append(UInt64(pack.size), to: &out)
        }
        Self.append(UInt32(entries.count), to: &out)
        for (path, entry) in entries.sorted(by: { ($0.value.pack, $0.value.offset) < ($1.value.pack, $1.value.offset) }) {
            Self.append(UInt16(path.utf8.count), to: &out)
            out += path.utf8
            Self.append(UInt32(entry.pack), to: &out)
            Self.append(UInt64(entry.offset), to: &out)
            Self.append(UInt32(entry.length), to: &out)
        }
        return out
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    // MARK: Reading

    static func parse(_ bytes: [UInt8]) throws -> PackIndex {
        guard bytes.count <= maxIndexBytes else { throw Malformed(why: "\(bytes.count) bytes, over \(maxIndexBytes)") }
        return try bytes.withUnsafeBytes { raw in
            var reader = Reader(raw: raw)
            guard try reader.take(magic.count).elementsEqual(magic) else { throw Malformed(why: "not a pack index (no TSPACKS1)") }
            let packCount = Int(try reader.read(UInt32.self))
            // Each pack takes at least 11 bytes: a count the rest cannot hold is refused before anything is reserved.
            guard packCount <= maxPacks, packCount <= reader.left / 11 else { throw Malformed(why: "\(packCount) packs") }
            var packs: [Pack] = []
            packs.reserveCapacity(packCount)
            for number in 0..<packCount {
                let length = Int(try reader.read(UInt16.self))
                let name = try reader.take(length)
                guard isPackName(name) else { throw Malformed(why: "pack \(number) has an unusable name") }
                let size = try reader.read(UInt64.self)
                guard size >= 1, size <= UInt64(maxPackBytes) else { throw Malformed(why: "pack \(number) of \(size) bytes") }
                packs.append(Pack(name: String(decoding: name, as: UTF8.self), size: Int(size)))
            }
            let entryCount = Int(try reader.read(UInt32.self))
            // Each entry takes at least 19 bytes.
            guard entryCount <= maxEntries, entryCount <= reader.left / 19 else { throw Malformed(why: "\(entryCount) entries") }
            var entries: [String: Entry] = [:]
            entries.reserveCapacity(entryCount)
            for number in 0..<entryCount {
                let length = Int(try reader.read(UInt16.self))
                let path = try reader.take(length)
                guard isPath(path) else { throw Malformed(why: "entry \(number) has an unusable path") }
                let pack = Int(try reader.read(UInt32.self))
                let offset = try reader.read(UInt64.self)
                let size = Int(try reader.read(UInt32.self))
                guard pack < packs.count else { throw Malformed(why: "entry \(number) names pack \(pack) of \(packs.count)") }
                let packSize = packs[pack].size
                // offset <= packSize (at most 5 GiB) first, then a subtraction that cannot overflow.
                guard size >= 1, offset <= UInt64(packSize), size <= packSize - Int(offset) else {
                    throw Malformed(why: "entry \(number) lies outside its pack (\(offset)+\(size) of \(packSize))")
                }
                let key = String(decoding: path, as: UTF8.self)
                guard entries.updateValue(Entry(pack: pack, offset: Int(offset), length: size), forKey: key) == nil else {
                    throw Malformed(why: "\(key) is given twice")
                }
            }
            guard reader.left == 0 else { throw Malformed(why: "\(reader.left) bytes after the last entry") }
            return PackIndex(packs: packs, entries: entries)
        }
    }

    /// A cursor over the index's bytes; every read is checked against what is left.
    private struct Reader {
        let raw: UnsafeRawBufferPointer
        var position = 0

        var left: Int { raw.count - position }

        mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer.SubSequence {
            guard count >= 0, count <= left else { throw Malformed(why: "cut short at byte \(position)") }
            defer { position += count }
            return raw[position..<(position + count)]
        }

        mutating func read<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            let bytes = try take(MemoryLayout<T>.size)
            return T(littleEndian: UnsafeRawBufferPointer(rebasing: bytes).loadUnaligned(as: T.self))
        }
    }

    // MARK: Names

    /// A packed file's path as written here: `image_files/` then segments of printable ASCII, none empty or all dots.
    static func isPath<Bytes: Collection<UInt8>>(_ path: Bytes) -> Bool {
        guard path.count > packedFolder.utf8.count + 1, path.count <= maxPathBytes,
              path.starts(with: Array(packedFolder.utf8) + [UInt8(ascii: "/")]) else { return false }
        var segment = 0, dots = 0
        for byte in path.dropFirst(packedFolder.utf8.count + 1) {
            if byte == UInt8(ascii: "/") {
                guard segment > 0, dots != segment else { return false }
                segment = 0
                dots = 0
                continue
            }
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
            segment += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        return segment > 0 && dots != segment
    }

    /// `packs/` then letters, digits, `-` and `.` (no `..`), as `PackWriter` names its objects.
    static func isPackName<Bytes: Collection<UInt8>>(_ name: Bytes) -> Bool {
        isName(name, endingWith: ".pack")
    }

    /// The index's own name as `pyramid.json` gives it: `packs/{upload}.index`.
    static func isIndexName(_ name: String) -> Bool {
        isName(Array(name.utf8), endingWith: ".index")
    }

    private static func isName<Bytes: Collection<UInt8>>(_ name: Bytes, endingWith suffix: String) -> Bool {
        let head = Array((folder + "/").utf8)
        guard name.count > head.count + suffix.utf8.count, name.count <= maxNameBytes, name.starts(with: head),
              Array(name.suffix(suffix.utf8.count)) == Array(suffix.utf8) else { return false }
        var previous: UInt8 = 0
        for byte in name.dropFirst(head.count) {
            let allowed = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || (byte == UInt8(ascii: ".") && previous != UInt8(ascii: "."))
            guard allowed else { return false }
            previous = byte
        }
        return true
    }
}
