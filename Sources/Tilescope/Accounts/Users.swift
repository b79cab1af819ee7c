import Foundation
import Glibc
import Synchronization

/// The users file as the server knows it now: read at start (a malformed file stops the server), then read
/// again when its modification time or size changes, checked at most every `recheckSeconds` when someone
/// signs in or a session is used, so an operator adds, removes or demotes a user without a restart. A file
/// that turns malformed keeps the last good users (logged).
final class Users: Sendable {
    static let recheckSeconds = 2.0

    let path: String?
    private struct State {
        var file: UsersFile
        var stamp: [Int]
        var checkedAt: Double
    }
    private let state: Mutex<State>

    /// No users file: nobody signs in (the trusted header's users, if set, are viewers).
    static let none = Users(fixed: .empty)

    /// The users of `path`; throws its first malformed line's reason.
    init(path: String) throws {
        self.path = path
        let (file, stamp) = try Self.read(path)
        state = Mutex(State(file: file, stamp: stamp, checkedAt: Self.now()))
    }

    /// Fixed users (tests).
    init(fixed: UsersFile) {
        path = nil
        state = Mutex(State(file: fixed, stamp: [], checkedAt: 0))
    }

    /// The user named `name`, from the file as it is now.
    func user(_ name: String) -> UsersFile.User? {
        current.users[name]
    }

    var current: UsersFile {
        guard let path else { return state.withLock { $0.file } }
        let now = Self.now()
        let due = state.withLock { state in
            guard now - state.checkedAt >= Self.recheckSeconds else { return nil as [Int]? }
            state.checkedAt = now
            return state.stamp
        }
        guard let known = due else { return state.withLock { $0.file } }
        guard Self.stamp(path) != known else { return state.withLock { $0.file } }
        do {
            let (file, stamp) = try Self.read(path)
            state.withLock { $0.file = file; $0.stamp = stamp }
            Log.info("users file \(path) read again: \(file.users.count) users")
        } catch {
            state.withLock { $0.stamp = Self.stamp(path) }
            Log.info("users file \(path) not read again, the last good one stays in use: \(error)")
        }
        return state.withLock { $0.file }
    }

    private static func read(_ path: String) throws -> (UsersFile, [Int]) {
        let stamp = Self.stamp(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsersFileError("cannot read the users file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw UsersFileError("the users file is not UTF-8") }
        return (try UsersFile.parse(text), stamp)
    }

    /// Modification time (ns) and size: what changes when the file is edited or replaced.
    private static func stamp(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [-1] }
        return [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size), Int(info.st_ino)]
    }

    private static func now() -> Double { ProcessInfo.processInfo.systemUptime }
}
