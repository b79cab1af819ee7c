/// The IIIF parameter errors, all 400 Bad Request as the specification asks, with a
/// message naming the parameter and what is wrong with it.
enum IIIFError {
    static func region(_ text: String, _ problem: String) -> APIError {
        APIError.badRequest("region '\(clip(text))' \(problem)")
    }

    static func size(_ text: String, _ problem: String) -> APIError {
        APIError.badRequest("size '\(clip(text))' \(problem)")
    }

    static func rotation(_ text: String, _ problem: String) -> APIError {
        APIError.badRequest("rotation '\(clip(text))' \(problem)")
    }

    static func quality(_ text: String) -> APIError {
        APIError.badRequest("quality '\(clip(text))' is not one of \(IIIFQuality.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    static func format(_ text: String) -> APIError {
        APIError.badRequest("format '\(clip(text))' is not one of \(IIIFFormat.offered.map(\.rawValue).joined(separator: ", "))")
    }

    /// Request text echoed back, bounded.
    private static func clip(_ text: String) -> String { String(text.prefix(60)) }
}
