// libjpeg (Debian's libjpeg62-turbo) needs <stdio.h> before its own header.
#include <stdio.h>
#include <jpeglib.h>
