/// Why the demo gallery could not be written.
public enum DemoGalleryError: Error, CustomStringConvertible, Equatable {
    case cannotWrite(path: String, reason: String)
    case invalidSize(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .cannotWrite(path, reason): "cannot write \(path): \(reason)"
        case let .invalidSize(width, height): "invalid demo image size \(width)x\(height) (each side 16...65535)"
        }
    }
}
