import Testing
@testable import HTTPServer

/// Request targets in absolute form (RFC 9112 3.2.2) are served like their path.
@Suite struct RequestTargetTests {
    @Test(arguments: [
        ("/a/b", "/a/b"),
        ("http://host/healthz", "/healthz"),
        ("HTTP://host:8080/a/b%2Fc", "/a/b%2Fc"),
        ("https://[::1]:8443/iiif/3/x/info.json", "/iiif/3/x/info.json"),
        ("http://host", "/"),
        ("*", "*"),
        ("ftp://host/a", "ftp://host/a"),
        ("http:/a", "http:/a"),
        ("", ""),
    ])
    func absoluteFormBecomesItsPath(target: String, path: String) {
        let request = Request(method: "GET", rawPath: target)
        #expect(request.rawPath == path)
        #expect((request.pathSegments != nil) == path.hasPrefix("/"))
    }
}
