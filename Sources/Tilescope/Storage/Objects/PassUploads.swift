import Foundation
import Imaging
import ScrollGeometry

/// The full pass's tiles uploaded while libvips is still writing the pass (issue 40's goal 2: a build published
/// within 1.3x of a local one). dzsave finishes every finer level only at the end of its one pass, so uploading
/// level by level as the levels are handed over started almost every PUT after the pass: the upload followed the
/// build instead of overlapping it.
///
/// Once the base is published (`send(levelsFrom:of:)`), a scanner thread looks every `scanInterval` for the tiles of
/// the pass's finer levels that have appeared, by their names (`{column}_{row}.jpeg` of each level's grid), and
/// queues each once; `threads` workers read them and hand them to `put` (the store appends them to the version's
/// packs, `PackWriter`, PUT as each fills). A tile is only there under
/// its name once complete: libvips 8.14's dzsave writes each to a hidden temporary (`.gsf-save-XXXXXX`, libgsf)
/// and renames it into place. What each upload sent is remembered by the
/// file's identity (inode, size, modification time): the publication's last pass re-uploads any file whose
/// identity differs, or that this never sent, so a tile rewritten after it was sent, or missed, still goes out
/// as it ends. Nothing here is visible to readers: the version's `pyramid.json` is still written last, after
/// `finish`.
///
/// A level handed over is renamed out of the pass's folder into the local copy: a queued tile not found in the
/// pass's folder is read from `publishedTiles` (renames only move forward, so one of the two holds it).
final class PassUploads: @unchecked Sendable {  // all mutable state is guarded by `condition`
    /// What a file was when it was sent.
    struct Identity: Equatable, Sendable {
        let inode: UInt64
        let size: Int
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int

        init(_ info: stat) {
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            modifiedSeconds = Int(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        }

        /// The identity of the file at `path` now, or nil if there is none.
        static func of(_ path: String) -> Identity? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return Identity(info)
        }
    }

    /// Puts one tile: its place inside the tiles folder (`{level}/{column}_{row}.jpeg`) and its bytes.
    typealias Put = @Sendable (_ place: String, _ bytes: [UInt8]) throws -> Void

    private let passTiles: String
    private let publishedTiles: String
    private let put: Put
    private let scanInterval: TimeInterval
    private let condition = NSCondition()
    private var queue: [String] = []
    private var next = 0

    /// Every tile queued so far, sent or not (what the scanner has seen, for tests that move a level after it).
    var queued: [String] {
        condition.lock()
        defer { condition.unlock() }
        return queue
    }
    private var inFlight = 0
    private var sent: [String: Identity] = [:]
    private var failure: (any Error)?
    private var scanning = true
    private var working = true
    private var running = 0

    /// Starts scanning `passTiles` (which need not exist yet) and uploading with `threads` PUTs in flight.
    init(passTiles: String, publishedTiles: String, threads: Int, scanInterval: TimeInterval = 0.5, put: @escaping Put) {
        self.passTiles = passTiles
        self.publishedTiles = publishedTiles
        self.put = put
        self.scanInterval = scanInterval
        running = threads + 1
        start("pass-scan") { self.scanLoop() }
        for index in 0..<threads { start("pass-upload-\(index)") { self.uploadLoop() } }
    }

    private func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            body()
            self.condition.lock()
            self.running -= 1
            self.condition.broadcast()
            self.condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Scans once more, waits for every queued tile to be sent, stops the threads, and returns what was sent by
    /// its place inside the tiles folder. After a failed PUT the rest is left for the caller (the first failure
    /// is logged, not thrown: the publication's last pass sends what is missing, and fails if the store does).
    func finish() -> [String: Identity] {
        condition.lock()
        scanning = false
        condition.broadcast()
        while scannerAlive { condition.wait() }
        condition.unlock()
        scan()  // what was renamed into place since the scanner's last look
        condition.lock()
        while failure == nil && (next < queue.count || inFlight > 0) { condition.wait() }
        working = false
        condition.broadcast()
        while running > 0 { condition.wait() }
        if let failure { Log.info("store: streaming the full pass's tiles stopped (\(failure)); the rest go at publication") }
        let result = sent
        condition.unlock()
        return result
    }

    /// Stops at once: nothing more is sent, and the PUTs in flight are waited for (a withdrawal deletes after this).
    func cancel() {
        condition.lock()
        scanning = false
        working = false
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    // MARK: Scanning

    private var scannerAlive = true
    /// The levels the pass hands over and where each stands: nil until the base is published (a JPEG's base is made
    /// apart, from a reduced decode, and the pass's own coarse levels are thrown away; they must never overwrite
    /// the base's).
    private var levels: [LevelScan]?

    /// Where the scan of one level stands. dzsave writes a level a row of tiles at a time, top to bottom, so only
    /// the first rows not all seen are probed, by name (`access`): a scan costs the tiles that may have appeared,
    /// not a listing of every tile written so far (re-reading 4,000-entry folders ten times a second cost more
    /// CPU than the uploads).
    private struct LevelScan {
        let level: Int
        let columns: Int
        let rows: Int
        /// The first row with a tile not seen yet.
        var row = 0
        /// Which tiles of the rows from `row` on were seen (row-major over the whole grid).
        var seen: [Bool]

        init(level: Int, grid: (columns: Int, rows: Int)) {
            self.level = level
            columns = grid.columns
            rows = grid.rows
            seen = Array(repeating: false, count: grid.columns * grid.rows)
        }
    }

    /// Rows probed past the first one not all seen: the pass's threads may finish a row's tiles out of order.
    static let rowsAhead = 2

    /// Tiles of `level` and finer, of `pyramid`'s grid, are the version's: from now on they are sent.
    func send(levelsFrom level: Int, of pyramid: Pyramid) {
        condition.lock()
        if level <= pyramid.maxLevel {
            levels = (max(level, 0)...pyramid.maxLevel).map { LevelScan(level: $0, grid: pyramid.tileGrid(ofLevel: $0)) }
        } else {
            levels = []
        }
        condition.unlock()
        scan()
    }

    private func scanLoop() {
        condition.lock()
        while scanning {
            condition.unlock()
            scan()
            condition.lock()
            if scanning { _ = condition.wait(until: Date().addingTimeInterval(scanInterval)) }
        }
        scannerAlive = false
        condition.broadcast()
        condition.unlock()
    }

    /// Queues every complete tile of the frontier rows not seen before. Only the scanner thread and `finish` (once
    /// the scanner has ended) call it, so `levels` is read and written back without a scan in between.
    private func scan() {
        condition.lock()
        guard var scans = levels else {
            condition.unlock()
            return
        }
        condition.unlock()
        var found: [String] = []
        for index in scans.indices {
            guard scans[index].row < scans[index].rows else { continue }
            // A level handed over was moved into the local copy: the last pass sends what this did not see.
            let folder = open(passTiles + "/\(scans[index].level)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else { continue }
            Self.probe(&scans[index], in: folder, into: &found)
            close(folder)
        }
        condition.lock()
        levels = scans
        for place in found { queue.append(place) }
        condition.broadcast()
        condition.unlock()
    }

    /// Names looked up relative to the level's folder (`faccessat`): a whole path's walk per probe cost ten times more.
    private static func probe(_ scan: inout LevelScan, in folder: Int32, into found: inout [String]) {
        // Rows all there (a level already written, the base of a source with no reduced decode published after the
        // pass) cost one look each; the probing stops after `rowsAhead + 1` rows with a tile still missing.
        var incomplete = 0
        var row = scan.row
        while row < scan.rows && incomplete <= rowsAhead {
            var complete = true
            for column in 0..<scan.columns where !scan.seen[row * scan.columns + column] {
                let name = "\(column)_\(row).jpeg"
                guard faccessat(folder, name, F_OK, 0) == 0 else {
                    complete = false
                    continue
                }
                scan.seen[row * scan.columns + column] = true
                found.append("\(scan.level)/" + name)
            }
            if !complete { incomplete += 1 }
            row += 1
        }
        while scan.row < scan.rows,
              scan.seen[(scan.row * scan.columns)..<((scan.row + 1) * scan.columns)].allSatisfy({ $0 }) {
            scan.row += 1
        }
    }

    // MARK: Uploading

    private func uploadLoop() {
        condition.lock()
        while true {
            while working && next >= queue.count { condition.wait() }
            guard working, failure == nil else { break }
            let place = queue[next]
            next += 1
            inFlight += 1
            condition.unlock()
            let outcome = Result { try send(place) }
            condition.lock()
            inFlight -= 1
            switch outcome {
            case .success(let identity?): sent[place] = identity
            case .success(nil): break  // neither here nor published: the last pass finds it wherever it is
            case .failure(let error): failure = failure ?? error
            }
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Reads the tile (from the pass's folder, else from where its level was published) and puts it; returns the
    /// identity of the file it read, nil if it found none.
    private func send(_ place: String) throws -> Identity? {
        var descriptor = open(passTiles + "/" + place, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { descriptor = open(publishedTiles + "/" + place, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, size - done) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }  // shorter than it was: not the file that was stat'ed; the last pass sends it
            done += count
        }
        try put(place, bytes)
        return Identity(info)
    }
}
