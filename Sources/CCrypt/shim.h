// libxcrypt (Debian's libcrypt-dev): crypt_r checks the users file's password hashes (yescrypt, bcrypt)
// and crypt_gensalt_rn makes a salt for `tilescope hash-password`. Plain functions: no C shim needed.
#include <crypt.h>
