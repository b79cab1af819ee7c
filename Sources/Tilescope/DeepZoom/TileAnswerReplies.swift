import HTTPServer

/// A derived-format route's answer (`TileAnswer`, from `DerivedFormats`) as the server sends it: every one
/// says that the route's answers vary with `Accept` (`JPEGXLAnswers`), as the errors that depend on it do.
extension TilescopeApp {
    func reply(_ answer: TileAnswer, for request: Request) -> Reply {
        switch answer {
        case .made(let soon, let pixels, let make):
            return .costly(CostlyWork(client: clients.client(of: request), pixels: pixels, mayRunInline: soon) {
                Self.response(make())
            })
        default:
            return .now(Self.response(answer))
        }
    }

    static func response(_ answer: TileAnswer) -> Response {
        func headers(_ type: String, _ etag: TileETag, _ cacheControl: String) -> [(name: String, value: String)] {
            var headers: [(name: String, value: String)] = [
                ("Content-Type", type), ("ETag", etag.text), ("Cache-Control", cacheControl), JPEGXLAnswers.vary,
            ]
            headers.reserveCapacity(HTTPCaching.headersPerResponse)  // room for CORS and Server-Timing
            return headers
        }
        switch answer {
        case let .bytes(bytes, type, etag, cacheControl, timing):
            let body: Response.Body
            switch bytes {
            case let .file(descriptor, size): body = .file(descriptor: descriptor, size: size)
            case .made(let made): body = .bytes(made)
            }
            return Response(status: 200, headers: headers(type, etag, cacheControl) + [("Server-Timing", timing)],
                            body: body)
        case let .notModified(type, etag, cacheControl):
            return Response(status: 304, headers: headers(type, etag, cacheControl))
        case .made(_, _, let make):
            return response(make())
        case let .failed(error, varies):
            var response = error.response
            if varies { response.headers.append(JPEGXLAnswers.vary) }
            return response
        }
    }
}
