import Foundation

/// A `captions.plist` read by `PropertyListDecoder`, as the `Any` tree `PropertyListSerialization`
/// would give, cut down to what `Captions` reads: the top-level dictionary, each entry, and the `title`
/// and `caption` of an entry that is a dictionary. Below that only the kind of a value is kept (an array
/// or a dictionary comes back empty), which is all an error message needs.
///
/// Not `PropertyListSerialization`: on Linux it crashes the process (a segmentation fault in Foundation's
/// bridging, found by the captions-plist fuzz target) on a binary property list that holds a set. And
/// not a full decode of every value either: a binary property list can refer to its own containers, so
/// a full decode of `captions.plist` recurses without end (also found by the fuzz target). Stopping at
/// the depth captions have, and reading two keys of each entry, keeps the work linear in the entries.
/// The decoder's XML reader traps on some bytes that are not UTF-8, so only UTF-8 XML reaches it.
enum PropertyListValue: Decodable {
    case string(String)
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case date(Date)
    case data(Data)
    case array
    case dictionary([String: PropertyListValue])

    /// Reads an XML or binary property list; throws for anything else, sets included.
    static func parse(_ data: Data) throws -> Any {
        // The decoder's XML reader traps (a fatal error in FoundationEssentials, found by the fuzz target)
        // on bytes that are not UTF-8 inside an <integer>: refuse them before it sees them.
        if !data.starts(with: Array("bplist".utf8)) && String(validating: data, as: UTF8.self) == nil {
            throw CocoaError(.propertyListReadCorrupt,
                             userInfo: [NSDebugDescriptionErrorKey: "an XML property list must be UTF-8"])
        }
        return try PropertyListDecoder().decode(PropertyListValue.self, from: data).any
    }

    /// The keys read of an entry that is a dictionary.
    static let entryKeys: Set<String> = ["title", "caption"]

    init(from decoder: any Decoder) throws {
        let depth = decoder.codingPath.count  // 0: the file, 1: an entry, 2: a title or caption
        let container = try decoder.singleValueContainer()
        // Each attempt fails with a type mismatch unless the value has that type.
        if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .real(value) }
        else if let value = try? container.decode(Date.self) { self = .date(value) }
        else if let value = try? container.decode(Data.self) { self = .data(value) }
        else if let keyed = try? decoder.container(keyedBy: Key.self) {
            guard depth < 2 else { self = .dictionary([:]); return }
            var values: [String: PropertyListValue] = [:]
            for key in keyed.allKeys where depth == 0 || Self.entryKeys.contains(key.stringValue) {
                values[key.stringValue] = try keyed.decode(PropertyListValue.self, forKey: key)
            }
            self = .dictionary(values)
        } else {
            _ = try decoder.unkeyedContainer()  // throws for what is no property list value (a set)
            self = .array
        }
    }

    /// The value as `PropertyListSerialization` returns it: `String`, `Bool`, `Int`, `Double`, `Date`,
    /// `Data`, `[Any]` (always empty), `[String: Any]`.
    var any: Any {
        switch self {
        case .string(let value): value
        case .bool(let value): value
        case .integer(let value): value
        case .real(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array: [Any]()
        case .dictionary(let values): values.mapValues(\.any)
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
