/// An element of a small XML document (an S3 answer): its name without namespace prefix, its
/// children, and its text (entities decoded).
public struct XMLNode: Sendable {
    public let name: String
    public var children: [XMLNode] = []
    public var text: String = ""

    public init(name: String) {
        self.name = name
    }

    /// The first child called `name`.
    public func child(_ name: String) -> XMLNode? { children.first { $0.name == name } }
    /// Every child called `name`, in order.
    public func children(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }
    /// The text of the first child called `name`.
    public func text(of name: String) -> String? { child(name)?.text }
}
