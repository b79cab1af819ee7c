/// A request's query arguments, percent-decoded: a short list in the order sent, where a repeated name keeps
/// its last value (as a dictionary keeps it).
///
/// Not a dictionary: a request carries a handful of arguments, and finding one by comparing names costs less
/// than hashing every name on the way in and again on every lookup (a viewport request hashed a dozen names,
/// about 7,000 instructions of its answer).
public struct QueryArguments: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    fileprivate struct Argument: Sendable, Equatable {
        let name: String
        var value: String
    }

    private var arguments: [Argument] = []

    public init() {}

    public init(_ dictionary: [String: String]) {
        arguments = dictionary.map { Argument(name: $0.key, value: $0.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { set(name, value) }
    }

    /// Room for `count` arguments, so that adding them does not regrow the list.
    init(capacity: Int) {
        arguments.reserveCapacity(capacity)
    }

    /// The value of `name`, `nil` when absent.
    public subscript(name: String) -> String? {
        for argument in arguments where argument.name == name { return argument.value }
        return nil
    }

    /// Adds `name`, or replaces its value when it is already there.
    public mutating func set(_ name: String, _ value: String) {
        if let index = arguments.firstIndex(where: { $0.name == name }) {
            arguments[index].value = value
        } else {
            arguments.append(Argument(name: name, value: value))
        }
    }

    public var isEmpty: Bool { arguments.isEmpty }
    public var count: Int { arguments.count }
    /// The names, in the order sent.
    public var keys: [String] { arguments.map(\.name) }

    public func makeIterator() -> Iterator {
        Iterator(arguments: arguments)
    }

    /// The arguments in the order sent. A concrete type, not an opaque one: code in other modules iterates it
    /// through plain calls, where an opaque iterator went through the generic runtime (thousands of
    /// instructions for a viewport's seven arguments).
    public struct Iterator: IteratorProtocol {
        private let arguments: [Argument]
        private var index = 0

        fileprivate init(arguments: [Argument]) {
            self.arguments = arguments
        }

        public mutating func next() -> (key: String, value: String)? {
            guard index < arguments.count else { return nil }
            defer { index += 1 }
            return (key: arguments[index].name, value: arguments[index].value)
        }
    }

    /// Equal when they hold the same names with the same values, in any order (as dictionaries are).
    public static func == (a: QueryArguments, b: QueryArguments) -> Bool {
        a.count == b.count && a.arguments.allSatisfy { b[$0.name] == $0.value }
    }

    public var description: String {
        "[" + arguments.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }
}
