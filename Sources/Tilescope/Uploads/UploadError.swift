/// Why an upload's body was refused while it streamed in.
enum UploadError: Error, CustomStringConvertible {
    case malformedMultipart(String)
    case cannotWrite(String)

    var description: String {
        switch self {
        case .malformedMultipart(let why): "the multipart/form-data body is malformed: \(why)"
        case .cannotWrite(let why): "the upload cannot be stored: \(why)"
        }
    }

    var apiError: APIError {
        switch self {
        case .malformedMultipart: APIError.badRequest(description)
        case .cannotWrite: APIError(507, "insufficient_storage", description)
        }
    }
}
