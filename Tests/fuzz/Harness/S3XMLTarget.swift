import Foundation
@testable import ObjectStore
@testable import Tilescope

/// S3's XML answers (ObjectStore): the parser, a ListObjectsV2 page and an error body. Besides not
/// trapping: a tree is never deeper than the parser's limit, a page is truncated only with a token,
/// and an error's code and message are bounded. Each listed key as an images bucket takes it
/// (`BucketObjectName`, under the prefix `p` and the whole bucket): a name it keeps has no control character,
/// no empty, `.` or `..` segment, is bounded, gives back its key, and stays inside any folder it is put in.
enum S3XMLTarget {
    static func run(_ bytes: [UInt8]) {
        if let root = try? XMLDocumentParser.parse(bytes) {
            FuzzCheck.require(depth(root) <= XMLDocumentParser.maxDepth, "a tree deeper than \(XMLDocumentParser.maxDepth)")
            FuzzCheck.require(!root.name.isEmpty, "an element without a name")
        }
        if let page = try? S3ListPage(xml: bytes) {
            FuzzCheck.require(page.objects.allSatisfy { $0.size >= 0 }, "a negative size")
            FuzzCheck.require(page.nextContinuationToken.map { !$0.isEmpty } ?? true, "an empty continuation token")
            for object in page.objects {
                for prefix in ["p", ""] { checkName(object.key, prefix: prefix) }
                if let etag = object.etag, BucketObjectName.isUsable(etag: etag) {
                    FuzzCheck.require(etag.utf8.count <= BucketObjectName.maxETagBytes, "an overlong ETag kept")
                }
            }
        }
        let error = S3Error.from(HTTPClientResponse(status: 503, headers: [], body: bytes))
        if case .service(let status, let code, let message, _) = error {
            FuzzCheck.require(status == 503 && !code.isEmpty && code.count <= 100 && message.count <= 500, "error \(status) \(code) \(message.count)")
        } else {
            FuzzCheck.require(false, "an error answer mapped to \(error)")
        }
    }

    static func checkName(_ key: String, prefix: String) {
        guard case .success(let name) = BucketObjectName.name(of: key, prefix: prefix) else { return }
        FuzzCheck.require((prefix.isEmpty ? name : prefix + "/" + name) == key, "name \(name) does not give back its key")
        FuzzCheck.require(!name.isEmpty && name.utf8.count <= BucketObjectName.maxNameBytes, "a name of \(name.utf8.count) bytes")
        FuzzCheck.require(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }, "a control character kept")
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        FuzzCheck.require(segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }, "a bad segment kept in \(name)")
        let inside = ("/data/images/" + name as NSString).standardizingPath
        FuzzCheck.require(inside.hasPrefix("/data/images/"), "\(name) leaves its folder as \(inside)")
    }

    static func depth(_ node: XMLNode) -> Int {
        1 + (node.children.map(depth).max() ?? 0)
    }
}
