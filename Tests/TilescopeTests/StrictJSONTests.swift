import Foundation
import Testing
@testable import Tilescope

/// Request bodies are JSON as RFC 8259 defines it, whatever Foundation's decoder would forgive.
@Suite struct StrictJSONTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #"{"rating": 5}"#, #" {"a": [1, -2.5e+3, 0.0, 1E2, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} "#,
        #"{"a":{"b":{"c":[[[]]]}}}"#, "\"text\"", "0", "-0", "12.25",
    ])
    func wellFormedTextIsAccepted(text: String) {
        #expect(StrictJSON.problem(in: Array(text.utf8)) == nil, "\(text)")
    }

    @Test(arguments: [
        #"{"rating": 5,}"#, #"[1, 2,]"#, #"{"a" 1}"#, #"{a: 1}"#, #"{'a': 1}"#, #"[01]"#, #"[1.]"#, #"[.5]"#, #"[+1]"#,
        #"[1e]"#, #"[NaN]"#, #"[Infinity]"#, #"[tru]"#, #"{"a": 1} x"#, #"{"a": 1}{"b": 2}"#, "", " ", "[", #"{"a""#,
        #"["\x"]"#, #"["\u12"]"#, "[\"a\u{01}b\"]", "// comment\n{}", "{} // comment", #"{"a": 1 /* c */}"#,
    ])
    func malformedTextIsRefusedWithAPlace(text: String) {
        let problem = StrictJSON.problem(in: Array(text.utf8))
        #expect(problem?.hasPrefix("not valid JSON: ") == true, "\(text)")
        #expect(problem?.contains(" at byte ") == true)
    }

    /// The parsed value keeps what the checks after it need: member names unescaped and in order, repeats
    /// included, and numbers as the text sent, so that `1e400` is not lost to a decoder that cannot hold it.
    @Test func valuesKeepMemberOrderRepeatsAndNumberText() throws {
        let value = try StrictJSON.parse(Array(#"{"r\u0061ting": 1e400, "a": [1, "x\n\u00e9\ud83d\ude00", true, null], "a": {}}"#.utf8))
        guard case .object(let members) = value else { Issue.record("not an object: \(value)"); return }
        #expect(members.map(\.name) == ["rating", "a", "a"])
        #expect(members[0].value == .number("1e400"))
        #expect(members[1].value == .array([.number("1"), .string("x\n\u{e9}\u{1F600}"), .bool(true), .null]))
        #expect(StrictJSON.repeatedName(in: members) == "a")
        #expect(StrictJSON.repeatedName(in: members, among: ["rating"]) == nil)
        #expect(StrictJSON.repeatedName(in: members, among: ["a", "rating"]) == "a")
    }

    /// What Foundation refused after the syntax check, the parser now refuses itself: bytes that are not UTF-8
    /// and escapes of half a surrogate pair.
    @Test(arguments: [[0x22, 0xFF, 0x22], Array(#"["\ud83d"]"#.utf8), Array(#"["\ude00x"]"#.utf8), Array(#"["\ud83d\u0041"]"#.utf8)])
    func invalidTextInStringsIsRefused(bytes: [UInt8]) {
        #expect(StrictJSON.problem(in: bytes)?.hasPrefix("not valid JSON: ") == true, "\(bytes)")
    }

    /// A rating's number is judged from its digits, exactly, however long its text or exponent.
    @Test func ratingNumbersAreWholeOrNotExactly() {
        let cases: [(String, RatingBody.Number)] = [
            ("7", .whole(7)), ("7.0", .whole(7)), ("7e0", .whole(7)), ("0.7e1", .whole(7)), ("700e-2", .whole(7)),
            ("-0", .whole(0)), ("0.0e-5", .whole(0)), ("-3", .whole(-3)), ("1.1e1", .whole(11)),
            ("5.5", .fraction), ("1e-400", .fraction), ("5.000000000000000001", .fraction), ("0.05e1", .fraction),
            ("1e23", .whole(nil)), ("1e400", .whole(nil)), ("-1e400", .whole(nil)), ("99999999999999999999", .whole(nil)),
            ("1e99999999999999999999999", .whole(nil)), ("1e-99999999999999999999999", .fraction),
            ("999999999999999999", .whole(999_999_999_999_999_999)),
        ]
        for (text, expected) in cases {
            #expect(RatingBody.wholeNumber(text) == expected, "\(text)")
        }
    }

    /// Deep nesting is refused before any recursive decoder sees it.
    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(StrictJSON.problem(in: Array(deep.utf8))?.contains("nested deeper than 32") == true)
        let fine = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(StrictJSON.problem(in: Array(fine.utf8)) == nil)
    }

    @Test func ratingAndViewportBodiesWithTrailingCommasAre400() {
        #expect(throws: APIError.self) { try RatingBody.parse(Array(#"{"rating": 5,}"#.utf8)) }
        #expect(throws: ViewportQueryError.self) { try ViewportQuery.parse(json: Array(#"{"width": 8, "height": 6,}"#.utf8)) }
        #expect((try? RatingBody.parse(Array(#"{"rating": 5}"#.utf8))) == 5)
        #expect((try? ViewportQuery.parse(json: Array(#"{"width": 8, "height": 6}"#.utf8))) != nil)
    }
}
