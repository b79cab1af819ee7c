import HTTPServer
@testable import Tilescope

/// The `Accept` header of every AVIF and WebP tile request, read for `image/jxl` (`JPEGXLAnswers.accepted`).
///
/// Two headers per input. The input itself, as sent: no trap, and never accepted unless its bytes name
/// `image/jxl`. And a header built from the input, member by member, whose meaning is known: `image/jxl` in any
/// case, `image/*`, `*/*`, other types and near misses (`image/jx`, `application/jxl`), each with `q=0` in its
/// valid spellings, a positive `q`, or other parameters, spaces and tabs around each part. That one must be
/// refused when no member is `image/jxl` (`image/*` and `*/*` do not count) or when every `image/jxl` member
/// says `q=0`, and accepted when one names it and none says `q=0`.
enum AcceptTarget {
    static func run(_ bytes: [UInt8]) {
        let raw = String(decoding: bytes, as: UTF8.self)
        if accepted(raw) {
            let lowered = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            FuzzCheck.require(contains(lowered, Array("image/jxl".utf8)),
                              "accepted without naming image/jxl: \(raw.debugDescription)")
        }

        let built = BuiltAccept(bytes)
        let answer = accepted(built.header)
        let jxl = built.members.filter(\.isJPEGXL)
        if built.header.utf8.count > 4096 || jxl.isEmpty || jxl.allSatisfy(\.refuses) {
            FuzzCheck.require(!answer, "accepted: \(built.header.debugDescription)")
        } else if jxl.allSatisfy({ !$0.refuses }) {
            FuzzCheck.require(answer, "refused: \(built.header.debugDescription)")
        }
    }

    static func accepted(_ header: String) -> Bool {
        JPEGXLAnswers.accepted(by: Request(method: "GET", rawPath: "/", headers: ["accept": header]))
    }

    static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        return (0...(bytes.count - part.count)).contains { bytes[$0..<($0 + part.count)].elementsEqual(part) }
    }
}

/// An `Accept` header made from fuzz bytes, three bytes a member (type, parameters, spaces).
struct BuiltAccept {
    struct Member {
        var isJPEGXL: Bool
        /// Carries `q=0` (in some valid spelling).
        var refuses: Bool
    }

    static let jpegXL = ["image/jxl", "IMAGE/JXL", "Image/Jxl"]
    static let others = ["image/*", "*/*", "image/avif", "image/webp", "image/jx", "application/jxl", "image/jxl2", "jxl"]
    static let zeros = ["q=0", "q=0.", "q=0.0", "q=0.00", "q=0.000", "Q=0", "Q=0.000"]
    static let positives = ["q=1", "q=1.0", "q=0.5", "q=0.001", "q=0.9", "q=1.000", "Q=0.8"]
    static let parameters = ["level=1", "charset=utf-8", "x=0"]
    static let spaces = ["", " ", "\t", " \t "]

    var members: [Member] = []
    var header = ""

    init(_ bytes: [UInt8]) {
        var parts: [String] = []
        var index = 0
        while index + 2 < bytes.count && members.count < 24 {
            let kind = Int(bytes[index]), shape = Int(bytes[index + 1]), space = Int(bytes[index + 2])
            index += 3
            let isJPEGXL = kind % 11 < 3
            var text = isJPEGXL ? Self.jpegXL[kind % 11] : Self.others[kind % 11 - 3]
            var refuses = false
            for number in 0..<(shape % 4) {
                let choice = (shape >> (2 + 2 * number)) & 3
                let parameter: String
                switch choice {
                case 0:
                    parameter = Self.zeros[(kind >> 4 + number) % Self.zeros.count]
                    refuses = true
                case 1: parameter = Self.positives[(kind >> 4 + number) % Self.positives.count]
                default: parameter = Self.parameters[(kind >> 4 + number) % Self.parameters.count]
                }
                text += Self.spaces[(space >> (2 * number)) & 3] + ";" + Self.spaces[(space >> 6) & 3] + parameter
            }
            parts.append(Self.spaces[space & 3] + text + Self.spaces[(space >> 4) & 3])
            members.append(Member(isJPEGXL: isJPEGXL, refuses: refuses))
        }
        header = parts.joined(separator: ",")
    }
}
