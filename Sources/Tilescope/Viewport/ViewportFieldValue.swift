/// One raw request field, as a query string or a JSON body gives it, before it is checked.
///
/// Query strings only ever give `.text`; JSON bodies give numbers, booleans, arrays, objects or strings.
/// `null` in JSON counts as absent. Decoding never fails on a field's shape, so that the error can name the field.
enum ViewportFieldValue: Hashable, Sendable, Decodable {
    case text(String)
    case number(Double)
    case bool(Bool)
    case list([Double])
    case object([String: Double])
    case null
    /// Any other JSON shape (nested arrays, arrays of strings...): reported against its field, not the body.
    case unsupported

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Double.self) {
            // Numbers first: they are most fields, and each failed attempt costs a thrown error.
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let list = try? container.decode([Double].self) {
            self = .list(list)
        } else if let object = try? container.decode([String: Double].self) {
            self = .object(object)
        } else {
            self = .unsupported
        }
    }
}
