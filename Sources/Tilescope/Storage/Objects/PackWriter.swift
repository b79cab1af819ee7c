import Foundation
import Synchronization

/// One upload's tiles gathered into pack objects of about `targetBytes` (issue 40's goal 2: the store's cost is per
/// object, about 1 ms of its CPU and 0.35 ms of ours each, so 5,733 tiles as 5,733 PUTs cost more than the build's
/// own pass on two cores). Files are appended as the build hands them over, from any thread; the append that fills a
/// pack PUTs it, on its own thread, while the others go on filling the next one, so packs go out while the build
/// runs. `finish` (once every append has returned) PUTs the partial pack, then the index (`PackIndex`) of every file
/// appended: its name goes into the version's `pyramid.json`, written after it.
///
/// Names carry a random upload token (`packs/{token}-{n}.pack`, `packs/{token}.index`): two uploads of one version
/// (a dead builder's and its successor's, or the loser of a publication race) never write the same key, so the
/// index a published `pyramid.json` names always describes the packs it was written with. A file appended twice (a
/// tile rewritten after it was sent) is indexed at its last place.
///
/// A pack whose PUT fails (after the client's retries) is kept and sent again by `finish`; the append that sealed it
/// throws, which stops the streaming of the pass (`PassUploads`), whose files are appended again at publication.
final class PackWriter: Sendable {
    /// Puts one object of the upload: its name inside the version and its bytes.
    typealias Put = @Sendable (_ name: String, _ bytes: [UInt8]) throws -> Void

    /// What an upload wrote: the index's name and bytes (nil when no file was packed: a direct source has no tiles),
    /// and every object's name inside the version.
    struct Outcome: Sendable {
        let index: String?
        let indexBytes: [UInt8]
        let objects: Set<String>
    }

    let token: String
    let targetBytes: Int
    private let put: Put
    private struct State {
        var buffer: [UInt8] = []
        /// The number of the pack being filled.
        var number = 0
        var entries: [String: PackIndex.Entry] = [:]
        /// The sizes of the packs sealed, by number.
        var sizes: [Int] = []
        var stored: Set<Int> = []
        /// Sealed packs whose PUT failed, sent again at `finish`.
        var unsent: [Int: [UInt8]] = [:]
    }
    private let state = Mutex(State())

    init(targetBytes: Int, put: @escaping Put) {
        self.targetBytes = max(targetBytes, 1)
        self.put = put
        token = String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    func packName(_ number: Int) -> String { "\(PackIndex.folder)/\(token)-\(number).pack" }
    var indexName: String { "\(PackIndex.folder)/\(token).index" }

    /// Adds a file (its path inside the version, `image_files/...`) to the pack being filled; PUTs the pack if it is
    /// now full. Throws that PUT's failure (the pack is kept for `finish`).
    func append(_ path: String, _ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw StoreError(message: "\(path) is empty: nothing to pack") }
        let sealed: (number: Int, bytes: [UInt8])? = state.withLock { state in
            state.entries[path] = PackIndex.Entry(pack: state.number, offset: state.buffer.count, length: bytes.count)
            if state.buffer.isEmpty { state.buffer.reserveCapacity(targetBytes + bytes.count) }
            state.buffer += bytes
            guard state.buffer.count >= targetBytes else { return nil }
            let sealed = (state.number, state.buffer)
            state.sizes.append(state.buffer.count)
            state.buffer = []
            state.number += 1
            return sealed
        }
        guard let sealed else { return }
        do {
            try put(packName(sealed.number), sealed.bytes)
            state.withLock { _ = $0.stored.insert(sealed.number) }
        } catch {
            state.withLock { $0.unsent[sealed.number] = sealed.bytes }
            throw error
        }
    }

    /// Once every `append` has returned: PUTs the partial pack and any that failed, then the index.
    func finish() throws -> Outcome {
        let (last, retry, entries, sizes, pending) = state.withLock { state in
            var last: (Int, [UInt8])?
            if !state.buffer.isEmpty {
                last = (state.number, state.buffer)
                state.sizes.append(state.buffer.count)
                state.buffer = []
                state.number += 1
            }
            let pending = (0..<state.sizes.count).filter { !state.stored.contains($0) && state.unsent[$0] == nil && $0 != last?.0 }
            return (last, state.unsent, state.entries, state.sizes, pending)
        }
        guard pending.isEmpty else { throw StoreError(message: "packs \(pending) are still being sent") }
        guard !entries.isEmpty else { return Outcome(index: nil, indexBytes: [], objects: []) }
        var toSend = retry.map { ($0.key, $0.value) }
        if let last { toSend.append(last) }
        for (number, bytes) in toSend.sorted(by: { $0.0 < $1.0 }) {
            try put(packName(number), bytes)
            state.withLock {
                $0.stored.insert(number)
                $0.unsent[number] = nil
            }
        }
        let index = PackIndex(packs: sizes.enumerated().map { PackIndex.Pack(name: packName($0.offset), size: $0.element) },
                              entries: entries)
        let bytes = index.encoded()
        try put(indexName, bytes)
        return Outcome(index: indexName, indexBytes: bytes, objects: Set(sizes.indices.map(packName)).union([indexName]))
    }
}
