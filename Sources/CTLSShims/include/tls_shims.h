#ifndef TLS_SHIMS_H
#define TLS_SHIMS_H
#include <openssl/ssl.h>

// libssl macros Swift cannot call, one function each. Nothing else.

/// SSL_set_tlsext_host_name: the server name sent in the handshake (SNI).
int ts_tls_set_server_name(SSL *ssl, const char *name);
/// SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION).
int ts_tls_require_tls12(SSL_CTX *ctx);

#endif
