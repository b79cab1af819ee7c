// OpenSSL's libssl, for ObjectStore's https endpoints: TLS over the HTTP client's own sockets.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
