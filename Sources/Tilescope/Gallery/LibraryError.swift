import Foundation

/// Why the library could not make a change asked of it. Domain words only: the app says which HTTP
/// status each is (`APIError.init(_:)`).
enum LibraryError: Error, Equatable, CustomStringConvertible {
    case noSuchImage(id: String)
    case cannotRemove(fileName: String, reason: String)

    var description: String {
        switch self {
        case .noSuchImage(let id): "no image with id '\(id.prefix(80))'"
        case let .cannotRemove(fileName, reason): "cannot remove \(fileName): \(reason)"
        }
    }
}
