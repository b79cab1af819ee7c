@testable import ObjectStore

/// S3's XML answers (ObjectStore): the parser, a ListObjectsV2 page and an error body. Besides not
/// trapping: a tree is never deeper than the parser's limit, a page is truncated only with a token,
/// and an error's code and message are bounded.
enum S3XMLTarget {
    static func run(_ bytes: [UInt8]) {
        if let root = try? XMLDocumentParser.parse(bytes) {
            FuzzCheck.require(depth(root) <= XMLDocumentParser.maxDepth, "a tree deeper than \(XMLDocumentParser.maxDepth)")
            FuzzCheck.require(!root.name.isEmpty, "an element without a name")
        }
        if let page = try? S3ListPage(xml: bytes) {
            FuzzCheck.require(page.objects.allSatisfy { $0.size >= 0 }, "a negative size")
            FuzzCheck.require(page.nextContinuationToken.map { !$0.isEmpty } ?? true, "an empty continuation token")
        }
        let error = S3Error.from(HTTPClientResponse(status: 503, headers: [], body: bytes))
        if case .service(let status, let code, let message, _) = error {
            FuzzCheck.require(status == 503 && !code.isEmpty && code.count <= 100 && message.count <= 500, "error \(status) \(code) \(message.count)")
        } else {
            FuzzCheck.require(false, "an error answer mapped to \(error)")
        }
    }

    static func depth(_ node: XMLNode) -> Int {
        1 + (node.children.map(depth).max() ?? 0)
    }
}
