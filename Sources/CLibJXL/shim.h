// libjxl (Debian's libjxl-dev, which libvips-dev already depends on): its encoder and decoder are plain
// C calls, no variadics, so Swift calls them directly.
#include <jxl/encode.h>
#include <jxl/decode.h>
