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

    @Test func equalsAsDictionariesDo() {
        let literal: QueryArguments = ["x": "1", "y": ""]
        #expect(literal == QueryArguments(["y": "", "x": "1"]))
        #expect(literal != ["x": "1"])
        #expect(literal != ["x": "1", "y": "2"])
        #expect(QueryArguments() == [:] && QueryArguments().isEmpty)
    }

    @Test func namesAreComparedExactly() {
        let query: QueryArguments = ["zoomScale": "2", "é": "accent", "": "empty"]
        #expect(query["zoomscale"] == nil && query["zoomScale"] == "2")
        #expect(query["e\u{301}"] == "accent")  // canonically equal, as a dictionary's String keys compare
        #expect(query[""] == "empty")
    }
}
