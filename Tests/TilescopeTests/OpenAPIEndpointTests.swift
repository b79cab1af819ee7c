import Foundation
import HTTPServer
import TestSupport
import Testing
@testable import Tilescope

/// `GET /openapi.json` on a real server, and the contract's paths against the router.
/// (Tests/contract/run.sh checks the live API against the contract with schemathesis.)
@Suite struct OpenAPIEndpointTests {
    /// The contract as committed: the one file, edited by hand.
    static let path = TestServer.repositoryRoot + "/Sources/Tilescope/OpenAPI/openapi.json"

    static func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
        return try #require(object as? [String: Any])
    }

    @Test func servesTheContractWithValidatorsAndCORS() throws {
        let server = try TestServer(label: "openapi") { _ in }
        let reply = try server.get("/openapi.json")
        #expect(reply.status == 200)
        // The file's bytes, as committed: the resource SwiftPM copied is that file, not a version of it.
        #expect(Data(reply.body) == (try Data(contentsOf: URL(fileURLWithPath: Self.path))))
        #expect(reply.header("content-type") == "application/json")
        #expect(reply.header("access-control-allow-origin") == "*")
        #expect(reply.json?["openapi"] as? String == "3.1.0")
        let etag = try #require(reply.header("etag"))
        #expect(try server.get("/openapi.json", headers: ["If-None-Match": etag]).status == 304)
        #expect(try server.get("/openapi.json", headers: ["If-None-Match": "\"other\""]).status == 200)
        #expect(try RawHTTP(port: server.port).send("HEAD", "/openapi.json").status == 200)
        #expect(try RawHTTP(port: server.port).send("DELETE", "/openapi.json").status == 405)
    }

    /// Every path of the contract reaches the route it documents with the methods it allows, and every
    /// route is documented.
    @Test func everyPathOfTheContractIsARouteAndEveryRouteIsInTheContract() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: Any])
        let samples = ["id": "tiny", "level": "3", "column": "1", "row": "2", "region": "full", "size": "max",
                       "rotation": "0", "quality": "default", "format": "jpg", "file": "index.html", "folder": "gallery",
                       "tileFormat": "webp", "version": "0123456789abcdef", "name": "label", "step": "1",
                       "betweenFormat": "avif"]
        var routes = Set<Int>()
        for template in paths.keys {
            var path = template
            for (name, value) in samples { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
            #expect(!path.contains("{"), "\(template) has a parameter without a sample")
            let request = Request(method: "GET", rawPath: path)
            let endpoint = try Endpoint.parse(try #require(request.pathSegments))
            let isStatic = if case .staticFile = endpoint { true } else { false }
            let isClient = template == "/" || template.hasSuffix("/{file}") && !template.hasPrefix("/api")
            #expect(isStatic == isClient, "\(template) is \(isStatic ? "" : "not ")a static file")
            routes.insert(endpoint.routeIndex)
            // HEAD is answered wherever GET is, which the contract says once rather than per path.
            let methods = Set((try #require(paths[template] as? [String: Any])).keys
                .filter { ["get", "put", "post", "delete", "patch"].contains($0) }.map { $0.uppercased() })
            #expect(methods == Set(endpoint.allowedMethods).subtracting(["HEAD"]), "methods of \(template)")
        }
        let documented = Set(routes.map { Endpoint.routeNames[$0] })
        let all = Set(Endpoint.routeNames).subtracting(["unmatched"])
        #expect(documented == all, "routes missing from Sources/Tilescope/OpenAPI/openapi.json: \(all.subtracting(documented).sorted())")
    }
}
