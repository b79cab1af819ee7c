/// Why a users file (or one of its lines) was refused: said at start, with the line number, never the hash.
struct UsersFileError: Error, Sendable, Equatable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
