import CTLS
import CTLSShims

/// The TLS settings of an `HTTPClient` for https endpoints (one OpenSSL SSL_CTX): TLS 1.2 at least,
/// the server's certificate verified against the system's certificate authorities or a given file,
/// and its name (or IP address) checked against the endpoint's host.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// `certificateAuthorities`: a PEM file of the authorities to trust; nil trusts the system's.
    init(certificateAuthorities: String?) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTPClientError.tlsFailed("SSL_CTX_new: \(Self.lastError())")
        }
        self.context = context
        guard ts_tls_require_tls12(context) == 1 else { throw HTTPClientError.tlsFailed("cannot require TLS 1.2") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded = certificateAuthorities.map { SSL_CTX_load_verify_locations(context, $0, nil) }
            ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else {
            throw HTTPClientError.tlsFailed("cannot load the certificate authorities: \(Self.lastError())")
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// OpenSSL's last queued error, as text (the queue is per thread; it is emptied).
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no detail" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
