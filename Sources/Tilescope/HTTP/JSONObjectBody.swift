/// A request body that must be one JSON object (a rating, a signed-URL request): its members, or a 400 that says
/// what is wrong and shows the body's `shape`. A name among `fields` given twice is refused; other names are
/// ignored, repeated or not, as an endpoint's query string's are.
enum JSONObjectBody {
    static func members(_ body: [UInt8], fields: Set<String>, shape: String) throws -> [StrictJSON.Member] {
        let value: StrictJSON.Value
        do throws(StrictJSON.Failure) {
            value = try StrictJSON.parse(body)
        } catch {
            throw APIError.badRequest("the body is \(error.description): \(shape)")
        }
        guard case .object(let members) = value else { throw APIError.badRequest("the body must be a JSON object: \(shape)") }
        if let name = StrictJSON.repeatedName(in: members, among: fields) {
            throw APIError.badRequest("the field \"\(name)\" is given twice: \(shape)")
        }
        return members
    }
}
