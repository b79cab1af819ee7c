import Foundation
import HTTPServer

/// JSON bodies, always with sorted keys so that equal values give equal bytes (and ETags).
public enum JSON {
    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data(#"{"error":"internal","message":"encoding failed"}"#.utf8))
    }

    public static func response<T: Encodable>(_ value: T, status: Int = 200) -> Response {
        Response(status: status,
                 headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")],
                 body: .bytes(encode(value)))
    }
}
