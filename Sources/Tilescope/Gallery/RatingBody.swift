import Catalog
import Foundation

/// The body of `PUT /api/images/{id}/rating`: `{"rating": N}`, N a whole number from 0 to 10.
/// Every way it can be wrong gets its own message.
struct RatingBody: Decodable {
    var rating: Int

    private enum CodingKeys: String, CodingKey { case rating }
    static let shape = #"send {"rating": N} with N a whole number from \#(Rating.range.lowerBound) to \#(Rating.range.upperBound)"#

    static func parse(_ body: [UInt8]) throws -> Int {
        if let problem = StrictJSON.problem(in: body) {
            throw APIError.badRequest("the body is \(problem): \(shape)")
        }
        let data = Data(body)
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw APIError.badRequest("the body is not valid JSON: \(shape)")
        }
        guard let fields = object as? [String: Any] else { throw APIError.badRequest("the body must be a JSON object: \(shape)") }
        guard let value = fields["rating"] else { throw APIError.badRequest(#"the field "rating" is missing: \#(shape)"#) }
        guard !(value is NSNull) else { throw APIError.badRequest(#""rating" is null: \#(shape)"#) }
        // JSONDecoder tells integers from booleans, strings and fractions, which NSNumber does not.
        guard let decoded = try? JSONDecoder().decode(RatingBody.self, from: data) else {
            throw APIError.badRequest(#""rating" must be a whole number (a JSON integer such as 7), not \#(describe(value)): \#(shape)"#)
        }
        do {
            return try Rating.validated(decoded.rating)
        } catch {
            throw APIError.badRequest(error.description)
        }
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: "the string \"\(text.prefix(20))\""
        case is Bool: "a boolean"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        case let number as NSNumber: number.stringValue.prefix(30).description
        default: "that value"
        }
    }
}
