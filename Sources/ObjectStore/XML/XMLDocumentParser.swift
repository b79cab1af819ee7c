/// A parser for the XML S3 answers with: elements, attributes (skipped), text, the five named
/// entities and numeric references, comments, processing instructions and the XML declaration.
/// Written here rather than Foundation's XMLParser (FoundationXML, libxml2) to keep ObjectStore's
/// dependencies to libcrypto, and because these answers need nothing more. No DTDs, so no entity
/// expansion (no "billion laughs"); depth and element count bounded; anything else is a `malformed`
/// error, never a crash.
public enum XMLDocumentParser {
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static let maxDepth = 32
    public static let maxElements = 200_000

    /// The root element of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws -> XMLNode {
        var index = 0
        var stack: [XMLNode] = []
        var root: XMLNode?
        var elements = 0
        let count = bytes.count

        func fail(_ why: String) -> Malformed { Malformed(description: "\(why) at byte \(index)") }
        // Byte comparisons in place: no array is made per position (the fuzzer found the parser slow).
        func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
            guard offset + pattern.count <= count else { return false }
            for (delta, byte) in pattern.enumerated() where bytes[offset + delta] != byte { return false }
            return true
        }
        func starts(with text: String, at offset: Int) -> Bool { matches(Array(text.utf8), at: offset) }
        func find(_ text: String, from offset: Int) -> Int? {
            let pattern = Array(text.utf8)
            var at = offset
            while at + pattern.count <= count {
                if bytes[at] == pattern[0] && matches(pattern, at: at) { return at }
                at += 1
            }
            return nil
        }

        while index < count {
            if bytes[index] != UInt8(ascii: "<") {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? count
                let text = try decodeEntities(bytes[index..<end])
                if stack.isEmpty {
                    guard text.allSatisfy({ $0.isWhitespace }) else { throw fail("text outside the root element") }
                } else {
                    stack[stack.count - 1].text += text
                }
                index = end
                continue
            }
            if starts(with: "<?", at: index) {
                guard let end = find("?>", from: index + 2) else { throw fail("unterminated declaration") }
                index = end + 2
            } else if starts(with: "<!--", at: index) {
                guard let end = find("-->", from: index + 4) else { throw fail("unterminated comment") }
                index = end + 3
            } else if starts(with: "<![CDATA[", at: index) {
                guard !stack.isEmpty, let end = find("]]>", from: index + 9) else { throw fail("CDATA outside an element or unterminated") }
                stack[stack.count - 1].text += String(decoding: bytes[(index + 9)..<end], as: UTF8.self)
                index = end + 3
            } else if starts(with: "<!", at: index) {
                throw fail("DTDs are not accepted")
            } else if starts(with: "</", at: index) {
                guard let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { throw fail("unterminated end tag") }
                let name = localName(bytes[(index + 2)..<end])
                guard let open = stack.popLast(), open.name == name else { throw fail("mismatched end tag") }
                if stack.isEmpty {
                    guard root == nil else { throw fail("a second root element") }
                    root = open
                } else {
                    stack[stack.count - 1].children.append(open)
                }
                index = end + 1
            } else {
                guard let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { throw fail("unterminated tag") }
                let selfClosing = end > index + 1 && bytes[end - 1] == UInt8(ascii: "/")
                let inner = bytes[(index + 1)..<(selfClosing ? end - 1 : end)]
                let nameEnd = inner.firstIndex(where: { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) ?? inner.endIndex
                let name = localName(inner[inner.startIndex..<nameEnd])
                guard !name.isEmpty else { throw fail("an element without a name") }
                elements += 1
                guard elements <= maxElements else { throw fail("too many elements") }
                guard stack.count < maxDepth else { throw fail("nested too deep") }
                let node = XMLNode(name: name)
                if selfClosing {
                    if stack.isEmpty {
                        guard root == nil else { throw fail("a second root element") }
                        root = node
                    } else {
                        stack[stack.count - 1].children.append(node)
                    }
                } else {
                    stack.append(node)
                }
                index = end + 1
            }
        }
        guard stack.isEmpty, let root else { throw Malformed(description: "no complete root element") }
        return root
    }

    /// `s3:Key` -> `Key`.
    private static func localName(_ bytes: ArraySlice<UInt8>) -> String {
        let name = String(decoding: bytes, as: UTF8.self)
        return name.split(separator: ":").last.map(String.init) ?? name
    }

    private static func decodeEntities(_ bytes: ArraySlice<UInt8>) throws -> String {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        let text = String(decoding: bytes, as: UTF8.self)
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                throw Malformed(description: "an unterminated entity")
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let scalar: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") { scalar = UInt32(entity.dropFirst(2), radix: 16) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst(1)) }
                else { scalar = nil }
                guard let scalar, let unicode = Unicode.Scalar(scalar) else { throw Malformed(description: "an unknown entity") }
                out.unicodeScalars.append(unicode)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        out += rest
        return out
    }
}
