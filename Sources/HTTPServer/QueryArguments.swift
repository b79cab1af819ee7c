/// A request's query arguments, percent-decoded: a short list in the order sent, where a repeated name keeps
/// its last value (as a dictionary keeps it) and is listed in `repeatedNames`, so that an endpoint can refuse a
/// field it reads given twice rather than read one of the values.
///
/// Not a dictionary: a request carries a handful of arguments, and finding one by comparing names costs less
/// than hashing every name on the way in and again on every lookup (a viewport request hashed a dozen names,
/// about 7,000 instructions of its answer).
public struct QueryArguments: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    fileprivate struct Argument: Sendable, Equatable {
        let name: String
        var value: String
        /// Already in `repeatedNames`: a name sent many times is listed once without searching the list.
        var repeated = false
    }

    private var arguments: [Argument] = []
    /// Past `indexedFrom` arguments, where each name is in `arguments`: adding thousands of names (from a
    /// dictionary, or a server given more connection memory than libmicrohttpd's few hundred records) stays
    /// linear, as a dictionary's was, instead of comparing each new name with every earlier one.
    private var positions: [String: Int]?
    private static let indexedFrom = 32
    /// The names sent more than once, each once, in the order their second value came.
    public private(set) var repeatedNames: [String] = []

    public init() {}

    public init(_ dictionary: [String: String]) {
        for (name, value) in dictionary { set(name, value) }
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
        index(of: name).map { arguments[$0].value }
    }

    /// Adds `name`, or replaces its value when it is already there (and notes it in `repeatedNames`).
    public mutating func set(_ name: String, _ value: String) {
        if let index = index(of: name) {
            arguments[index].value = value
            if !arguments[index].repeated {
                arguments[index].repeated = true
                repeatedNames.append(name)
            }
            return
        }
        arguments.append(Argument(name: name, value: value))
        if positions != nil {
            positions?[name] = arguments.count - 1
        } else if arguments.count == Self.indexedFrom {
            positions = Dictionary(uniqueKeysWithValues: arguments.enumerated().map { ($1.name, $0) })
        }
    }

    private func index(of name: String) -> Int? {
        if let positions { return positions[name] }
        return arguments.firstIndex { $0.name == name }
    }

    /// Whether `name` was sent more than once.
    public func isRepeated(_ name: String) -> Bool {
        !repeatedNames.isEmpty && repeatedNames.contains(name)
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
