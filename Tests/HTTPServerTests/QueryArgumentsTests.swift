import Testing
@testable import HTTPServer

/// Query arguments kept as a list behave as the dictionary they replace: last value wins, lookup by name.
@Suite struct QueryArgumentsTests {
    @Test func aRepeatedNameKeepsItsLastValueInItsFirstPlace() {
        var query = QueryArguments(capacity: 4)
        query.set("a", "1")
        query.set("b", "2")
        query.set("a", "3")
        #expect(query["a"] == "3" && query["b"] == "2" && query["c"] == nil)
        #expect(query.count == 2 && !query.isEmpty)
        #expect(query.keys == ["a", "b"])
        #expect(query.map(\.key) == ["a", "b"] && query.map(\.value) == ["3", "2"])
    }

    /// A name sent twice is remembered as such (once, however often it came), so that an endpoint can refuse a
    /// field given twice instead of silently reading one of the values.
    @Test func repeatedNamesAreRemembered() {
        var query = QueryArguments(capacity: 4)
        for (name, value) in [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("a", "5"), ("c", "4")] { query.set(name, value) }
        #expect(query.repeatedNames == ["a", "c"])
        #expect(query.isRepeated("a") && query.isRepeated("c") && !query.isRepeated("b") && !query.isRepeated("d"))
        #expect(QueryArguments(["x": "1", "y": "2"]).repeatedNames.isEmpty)
        var many = QueryArguments()
        for index in 0..<100 { many.set("n\(index)", "\(index)") }
        many.set("n70", "again")
        #expect(many.repeatedNames == ["n70"] && many["n70"] == "again")
    }

    @Test func equalsAsDictionariesDo() {
        let literal: QueryArguments = ["x": "1", "y": ""]
        #expect(literal == QueryArguments(["y": "", "x": "1"]))
        #expect(literal != ["x": "1"])
        #expect(literal != ["x": "1", "y": "2"])
        #expect(QueryArguments() == [:] && QueryArguments().isEmpty)
    }

    /// Past a few dozen names lookups go through an index: a hostile query of thousands of names is added in
    /// linear time, with the same answers.
    @Test func manyNamesKeepTheirValuesAndOrder() {
        var query = QueryArguments()
        for index in 0..<5_000 { query.set("n\(index)", "\(index)") }
        for index in stride(from: 0, to: 5_000, by: 7) { query.set("n\(index)", "again \(index)") }
        #expect(query.count == 5_000)
        #expect(query["n0"] == "again 0" && query["n1"] == "1" && query["n31"] == "31" && query["n32"] == "32")
        #expect(query["n4999"] == "4999" && query["n5000"] == nil)
        #expect(query.keys == (0..<5_000).map { "n\($0)" })
        #expect(query == QueryArguments(Dictionary(uniqueKeysWithValues: query.map { ($0.key, $0.value) })))
    }

    @Test func namesAreComparedExactly() {
        let query: QueryArguments = ["zoomScale": "2", "é": "accent", "": "empty"]
        #expect(query["zoomscale"] == nil && query["zoomScale"] == "2")
        #expect(query["e\u{301}"] == "accent")  // canonically equal, as a dictionary's String keys compare
        #expect(query[""] == "empty")
    }
}
