// OpenSSL's libcrypto, for ObjectStore's SigV4 signing: the one-shot digest and HMAC functions
// (EVP_Digest, HMAC) and CRYPTO_memcmp for comparing MACs in constant time. All are plain
// functions (no macros, no variadics), so no C shim is needed.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
