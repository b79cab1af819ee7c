// swift-tools-version:6.0
// Tilescope: a deep-zoom image tile server.
// Layering (see README): ScrollGeometry (pure arithmetic) <- Imaging (libvips, libjpeg, libjxl)
// <- HTTPServer (libmicrohttpd, no domain words) <- Tilescope (the app) <- tilescope (CLI).
import PackageDescription

let package = Package(
    name: "Tilescope",
    products: [
        .executable(name: "tilescope", targets: ["tilescope"]),
    ],
    targets: [
        // Debian's C libraries, found through pkg-config.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // zlib: the browser client's modules, stylesheet and pages sent compressed (StaticFiles.swift).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        // OpenSSL's libcrypto: SHA-256 and HMAC-SHA256 for ObjectStore's SigV4 signing.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // OpenSSL's libssl: TLS for ObjectStore's https endpoints.
        .systemLibrary(name: "CTLS", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        // libxcrypt: crypt_r checks user accounts' password hashes (yescrypt, bcrypt) in the users file.
        .systemLibrary(name: "CCrypt", pkgConfig: "libxcrypt", providers: [.apt(["libcrypt-dev"])]),
        // C glue, one target per library, so that Imaging never sees libmicrohttpd nor HTTPServer libvips.
        // Imaging's: non-variadic wrappers for libvips's variadic calls and macros, and the two callbacks
        // libvips needs in C (freeing wrapped pixels, forwarding progress), and its start-up with the format
        // modules loaded later (GModule). Nothing else.
        .target(name: "CVipsShims", dependencies: ["CVips"], linkerSettings: [.linkedLibrary("gmodule-2.0")]),
        // HTTPServer's: non-variadic wrappers for libmicrohttpd (starting a daemon, its info unions), its
        // panic handler (C: it reads errno first), the event loop's eventfd/epoll/thread-name helpers, and the
        // hot responses: a table of answers the Swift path computed, from which the access callback answers
        // GET and HEAD itself (rebuilding the target, matching If-None-Match, counting references to
        // bodies) without entering Swift. In C because skipping the Swift request path (a Request, routing,
        // retains) about halved a hot tile's CPU, to nginx's or less (docs/benchmarks.md, "Hot tile answers").
        .target(name: "CHTTPShims", dependencies: ["CMicroHTTPD"]),
        // libc calls Swift's Glibc module does not show: syncfs (the pyramid store), mallopt (Imaging's builds).
        .target(name: "CLibcShims"),
        // Decodes parts of JPEG tiles into a buffer: C, because libjpeg reports errors by longjmp.
        .target(name: "CTileDecoder", dependencies: ["CJPEG"]),
        // ObjectStore's: libssl's macros (the SNI name, the lowest TLS version) as functions.
        .target(name: "CTLSShims", dependencies: ["CTLS"]),

        .target(name: "ScrollGeometry"),
        .target(name: "Imaging", dependencies: ["CVipsShims", "CLibcShims", "CVips", "CTileDecoder", "CLibJXL", "ScrollGeometry"]),
        .target(name: "HTTPServer", dependencies: ["CHTTPShims", "CLibcShims", "CMicroHTTPD"]),
        .target(name: "Catalog", dependencies: ["CSQLite", "CLibPQ"]),
        // S3-compatible object storage: SigV4 signing, an HTTP/1.1 client, the S3 calls. No domain words
        // and none of our other modules: the pyramid and source stores of issue 40 stand on it.
        .target(name: "ObjectStore", dependencies: ["CCrypto", "CTLS", "CTLSShims"]),
        // openapi.json, the API contract (edited by hand, the only copy), is a resource: SwiftPM puts it in
        // Tilescope_Tilescope.resources/ beside the executable, and the server sends it at GET /openapi.json.
        .target(name: "Tilescope", dependencies: ["ScrollGeometry", "Imaging", "HTTPServer", "Catalog", "ObjectStore", "CLibcShims", "CCrypto", "CCrypt", "CZlib"],
                resources: [.copy("OpenAPI/openapi.json")]),
        // The built-in demo gallery's image painters: linked by the executable, unknown to the server.
        .target(name: "TilescopeDemo", dependencies: ["Imaging", "ScrollGeometry"]),
        .executableTarget(name: "tilescope", dependencies: ["Tilescope", "TilescopeDemo"]),

        .target(name: "TestSupport", dependencies: ["Imaging", "ScrollGeometry"], path: "Tests/TestSupport"),
        // The one seeded generator every property test draws from.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        .testTarget(name: "ScrollGeometryTests", dependencies: ["ScrollGeometry", "SeededRandom"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport", "SeededRandom"]),
        .testTarget(name: "CatalogTests", dependencies: ["Catalog", "SeededRandom", "TestSupport"]),
        .testTarget(name: "TilescopeTests", dependencies: ["Tilescope", "ObjectStore", "TestSupport", "SeededRandom"]),
        // Fixtures/aws4_testsuite: AWS's SigV4 test vectors (Apache 2.0), read from the source tree.
        .testTarget(name: "ObjectStoreTests", dependencies: ["ObjectStore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "TilescopeDemoTests", dependencies: ["TilescopeDemo", "Imaging", "ScrollGeometry", "TestSupport"]),
    ]
)

// A release binary carries the Swift runtime and Foundation in itself, as the container ships it: it starts without
// loading and resolving a dozen more shared libraries (the whole build of a 16x16 JPEG, process start and exit
// included, in 60 ms against 71; docs/benchmarks.md). Every Swift module is compiled against the static runtime's
// resource folder, as `swift build --static-swift-stdlib` does.
for target in package.targets where target.type != .system && target.type != .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
    if target.type == .executable {
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
    }
}
