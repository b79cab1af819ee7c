/// One raw request field, as a query string or a JSON body gives it, before it is checked.
///
/// Query strings only ever give `.text`; JSON bodies give numbers, booleans, arrays, objects or strings.
/// A JSON number keeps its text, read by the same parser as the query string's, so that the same number gets
/// the same answer either way (`1e400` is beyond Double in both). `null` in JSON counts as absent. Making a
/// value never fails on a field's shape, so that the error can name the field.
enum ViewportFieldValue: Hashable, Sendable {
    case text(String)
    /// A JSON number's text (`1024`, `-0.5`, `1e400`).
    case number(String)
    case bool(Bool)
    /// A JSON array of numbers, their texts.
    case list([String])
    /// A JSON object of numbers, their texts by name (`ViewportQuery` refuses a name given twice first).
    case object([String: String])
    case null
    /// Any other JSON shape (nested arrays, arrays of strings...): reported against its field, not the body.
    case unsupported

    init(_ json: StrictJSON.Value) {
        switch json {
        case .null: self = .null
        case .number(let text): self = .number(text)
        case .string(let text): self = .text(text)
        case .bool(let value): self = .bool(value)
        case .array(let items):
            var texts: [String] = []
            for item in items {
                guard case .number(let text) = item else { self = .unsupported; return }
                texts.append(text)
            }
            self = .list(texts)
        case .object(let members):
            var texts: [String: String] = [:]
            for member in members {
                guard case .number(let text) = member.value else { self = .unsupported; return }
                if texts[member.name] == nil { texts[member.name] = text }
            }
            self = .object(texts)
        }
    }
}
