import CMicroHTTPD
import Glibc

/// Turns a `Response` into a libmicrohttpd response and queues it.
enum ResponseWriter {
    static func queue(_ response: Response, on connection: OpaquePointer) -> MHD_Result {
        guard let native = make(response.body) else { return .NO }
        defer { MHD_destroy_response(native) }
        for (name, value) in response.headers {
            // withCString copies a small string to the stack; passing a String as a pointer argument
            // would allocate a C copy of every short name and value ("ETag", "image/jpeg") instead.
            _ = name.withCString { name in value.withCString { value in MHD_add_response_header(native, name, value) } }
        }
        return MHD_queue_response(connection, UInt32(response.status), native)
    }

    private static func make(_ body: Response.Body) -> OpaquePointer? {
        switch body {
        case .empty:
            return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress),
                                                .RESPMEM_MUST_COPY)
            }
        case .buffer(let buffer):
            // libmicrohttpd owns the memory from here and frees it when the response is destroyed.
            guard let native = MHD_create_response_from_buffer_with_free_callback(buffer.count, buffer.base, free) else {
                return nil
            }
            buffer.handOver()
            return native
        case .shared(let bytes):
            // The response holds a reference until libmicrohttpd has sent it and calls `releaseShared`.
            let owner = Unmanaged.passRetained(bytes).toOpaque()
            guard let native = MHD_create_response_from_buffer_with_free_callback_cls(
                bytes.count, bytes.base, releaseShared, owner) else {
                Unmanaged<SharedBytes>.fromOpaque(owner).release()
                return nil
            }
            return native
        case .file(let descriptor, let size):
            // libmicrohttpd owns the descriptor from here and closes it after sendfile.
            guard let native = MHD_create_response_from_fd(size, descriptor) else {
                close(descriptor)
                return nil
            }
            return native
        }
    }
}

/// libmicrohttpd's free callback for `.shared` bodies: drops the reference the response held.
private func releaseShared(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<SharedBytes>.fromOpaque(owner).release()
}
