/// A sign-in or sign-out form's body, `application/x-www-form-urlencoded`: `name=...&password=...&csrf=...`.
/// Bounded before anything is decoded: at most `maxBytes`, `maxFields` fields, only the names a form has, each
/// once (which of two values counts would be a guess), percent-escapes well formed, UTF-8.
struct LoginForm: Sendable, Equatable {
    let fields: [String: String]

    static let maxBytes = 4096
    static let maxFields = 8
    static let names: Set<String> = ["name", "password", "csrf", "origin"]

    subscript(_ name: String) -> String? { fields[name] }

    static func parse(_ body: [UInt8]) throws(APIError) -> LoginForm {
        guard body.count <= maxBytes else { throw APIError(413, "payload_too_large", "a sign-in form is at most \(maxBytes) bytes") }
        var fields: [String: String] = [:]
        let pairs = body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
        guard pairs.count <= maxFields else { throw APIError.badRequest("a sign-in form has at most \(maxFields) fields") }
        for pair in pairs {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), names.contains(name) else {
                throw APIError.badRequest("a sign-in form's fields are name, password, csrf and origin")
            }
            guard let value = parts.count == 2 ? decoded(parts[1]) : "" else {
                throw APIError.badRequest("the form's \(name) is not percent-encoded UTF-8")
            }
            guard fields[name] == nil else { throw APIError.badRequest("\(name) is given twice") }
            fields[name] = value
        }
        return LoginForm(fields: fields)
    }

    /// `+` as a space, `%XX` as its byte; nil for a malformed escape, a NUL or bytes that are not UTF-8.
    static func decoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(32)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        guard !out.contains(0) else { return nil }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 65...70: digit - 55
        case 97...102: digit - 87
        default: nil
        }
    }
}
