import CVipsShims
import CVips
import Foundation

/// Hands each failed operation the lines of libvips's error buffer that are its own.
///
/// libvips keeps one global error buffer for all threads: a failing build used to copy whatever
/// was there, other files' errors included, and to clear it under another failure's feet (which
/// then had no text at all). Here every drain moves the buffer's lines, under one lock, into a
/// ledger; an operation on a file registers that file for its duration, and its failure takes the
/// lines that name its file, plus the lines that name no registered file and arrived after it
/// began (older ones are some earlier operation's leftovers). Lines naming another registered
/// file stay for that file's own failure. A line that names no file (libjpeg's "Premature end of
/// input file", say) can only be attributed by elimination: while two operations fail at the
/// same moment, one of them may get such a line of the other.
///
/// Lines of a nameless source or target ("source: bad seek to 348"; libvips names a connection by
/// its file, else by its class) are about images in memory: given only to operations on memory.
/// Decoding a small AVIF from memory succeeds after another loader's sniff has left such a line, and
/// a truncated JPEG building meanwhile used to get it first in its reason. Operations on memory
/// register under a token of their own (`inMemory`), so their failures take only lines from their
/// own time, and the nameless lines go once no such operation is under way. Likewise a line led by
/// the path of a file no operation registered (one opened by other code) is not an unnamed line.
enum VipsErrorLedger {
    private struct Line {
        var text: String
        /// The drain that brought it in.
        var drain: Int
    }

    private struct Registration {
        var operations: Int
        /// The drain made when the first of them began: lines of earlier drains are not theirs.
        var since: Int
    }

    private static let lock = NSLock()
    /// Lines drained from libvips but not yet claimed, oldest first.
    nonisolated(unsafe) private static var pending: [Line] = []
    /// Files with an operation under way.
    nonisolated(unsafe) private static var registered: [String: Registration] = [:]
    /// Drains so far.
    nonisolated(unsafe) private static var drains = 0
    /// Unclaimed lines kept at most: libvips's buffer itself holds about 10 KB.
    static let pendingLimit = 200

    /// Runs `body` with `path` registered, so libvips errors naming it are kept for it.
    static func attributed<T>(to path: String, _ body: () throws -> T) rethrows -> T {
        lock.withLock {
            drainLocked()  // what is in the buffer now happened before this operation
            let current = registered[path]
            registered[path] = Registration(operations: (current?.operations ?? 0) + 1, since: current?.since ?? drains)
        }
        defer {
            lock.withLock {
                let left = (registered[path]?.operations ?? 1) - 1
                if left > 0 {
                    registered[path]?.operations = left
                } else {
                    registered[path] = nil
                    // Lines about a file nobody is working on any more will never be claimed.
                    pending.removeAll { $0.text.contains(path) }
                }
            }
        }
        return try body()
    }

    /// Runs `body`, an operation on an image in memory, registered under a token of its own; its
    /// failure takes its lines with `take(for: [token])`.
    static func inMemory<T>(_ body: (_ token: String) throws -> T) rethrows -> T {
        let token = lock.withLock {
            memoryOperations += 1
            return memoryPrefix + String(memoryOperations)
        }
        defer {
            lock.withLock {
                // Nobody left to claim what memory operations said (the successful ones' sniffs).
                if !registered.keys.contains(where: { $0.hasPrefix(memoryPrefix) && $0 != token }) {
                    pending.removeAll { isNameless($0.text) }
                }
            }
        }
        return try attributed(to: token) { try body(token) }
    }

    /// Drains libvips's buffer and takes the lines that belong to a failure of an operation on
    /// `paths` (none: an operation on no particular file). Empty when libvips said nothing.
    static func take(for paths: [String]) -> String {
        lock.withLock {
            drainLocked()
            let others = registered.keys.filter { !paths.contains($0) }
            let since = paths.compactMap { registered[$0]?.since }.min() ?? 0
            // Nameless lines only for operations known to be on memory, not for one on files or on
            // no particular file (a computation, whose own lines name its file or nothing).
            let onMemory = !paths.isEmpty && paths.allSatisfy { $0.hasPrefix(memoryPrefix) }
            var mine: [String] = []
            pending.removeAll { line in
                let named = paths.contains { line.text.contains($0) }
                let unnamed = line.drain > since && !others.contains { line.text.contains($0) }
                    && (onMemory || !isNameless(line.text)) && !namesAnotherFile(line.text, than: paths)
                guard named || unnamed else { return false }
                mine.append(line.text)
                return true
            }
            return mine.joined(separator: "\n")
        }
    }

    /// Operations on memory so far (their tokens' numbers).
    nonisolated(unsafe) private static var memoryOperations = 0
    /// Starts every memory operation's token: no line of libvips's ever contains it.
    private static let memoryPrefix = "\u{0}memory-"

    /// A line led by a file's path ("/tmp/x.avif: bad seek to 46544", libvips's lines of a file's
    /// source) that is none of `paths`: an operation on that file said it, registered or not.
    static func namesAnotherFile(_ text: String, than paths: [String]) -> Bool {
        text.hasPrefix("/") && text.contains(":") && !paths.contains { text.hasPrefix($0) }
    }

    /// A line of a connection with no file name: libvips's class nicknames.
    static func isNameless(_ text: String) -> Bool {
        ["source:", "target:", "source_custom:", "target_custom:"].contains { text.hasPrefix($0) }
    }

    private static func drainLocked() {
        guard let copy = vips_error_buffer_copy() else { return }  // copies and clears
        defer { g_free(copy) }
        let lines = String(cString: copy).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { return }
        drains += 1
        pending.append(contentsOf: lines.map { Line(text: $0, drain: drains) })
        if pending.count > pendingLimit { pending.removeFirst(pending.count - pendingLimit) }
    }
}
