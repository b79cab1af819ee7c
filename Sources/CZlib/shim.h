// zlib: compress2 for the browser client's text files (Content-Encoding: deflate).
#include <zlib.h>
