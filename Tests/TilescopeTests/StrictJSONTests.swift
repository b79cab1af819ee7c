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
