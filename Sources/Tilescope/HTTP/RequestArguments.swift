import HTTPServer

extension Request {
    /// The query argument `name` of an API endpoint that reads it, `nil` when absent; 400 when it is given twice,
    /// since which of the values counts would be a guess. Names an endpoint does not read are never looked at,
    /// so they may repeat (a cache-busting `_=1&_=2`). JSON bodies follow the same rule (`StrictJSON.repeatedName`).
    func argument(_ name: String) throws(APIError) -> String? {
        if query.isRepeated(name) { throw APIError.badRequest("\(name) is given twice") }
        return query[name]
    }
}
