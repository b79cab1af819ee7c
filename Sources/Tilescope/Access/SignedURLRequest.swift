/// The body of `POST /api/images/{id}/signed-urls`: `{"expiresIn": seconds, "images": [id, ...]}`, both
/// optional (an hour; the image of the path). Every way it can be wrong gets its own 400.
struct SignedURLRequest: Equatable {
    static let defaultLifetimeSeconds = 3600
    static let shape = #"send {"expiresIn": N, "images": ["id", ...]} (both optional) with N whole seconds from 1 to \#(SignedToken.maxLifetimeSeconds)"#

    var lifetimeSeconds = defaultLifetimeSeconds
    /// The ids besides the path's, in the order given.
    var images: [String] = []

    /// The body read; an empty body is every default.
    static func parse(_ body: [UInt8]) throws -> SignedURLRequest {
        var parsed = SignedURLRequest()
        guard !body.isEmpty else { return parsed }
        let members = try JSONObjectBody.members(body, fields: ["expiresIn", "images"], shape: shape)
        for member in members {
            switch (member.name, member.value) {
            case ("expiresIn", .number(let text)):
                // Read exactly from its digits as ratings are (`61288.0` and `6.1288e4` are 61288), bounded first.
                switch RatingBody.wholeNumber(text) {
                case .whole(let seconds?) where (1...SignedToken.maxLifetimeSeconds).contains(seconds):
                    parsed.lifetimeSeconds = seconds
                case .whole: throw APIError.badRequest("expiresIn \(text.prefix(30)) is out of range: \(shape)")
                case .fraction: throw APIError.badRequest("expiresIn must be a whole number of seconds, not \(text.prefix(30)): \(shape)")
                }
            case ("expiresIn", _): throw APIError.badRequest("expiresIn must be a whole number of seconds: \(shape)")
            case ("images", .array(let values)):
                guard values.count < SignedToken.maxIDs else {
                    throw APIError.badRequest("a signed URL opens at most \(SignedToken.maxIDs) images")
                }
                parsed.images = try values.map { value in
                    guard case .string(let id) = value else { throw APIError.badRequest("images must be image ids (strings): \(shape)") }
                    return id
                }
            case ("images", _): throw APIError.badRequest("images must be an array of image ids: \(shape)")
            default: continue  // other names are ignored, as a query string's are
            }
        }
        return parsed
    }
}
