// libc calls Swift's Glibc module does not show (GNU extensions, malloc.h), for the Swift code that needs
// them: Tilescope's pyramid store (syncfs) and Imaging's builds (mallopt). Nothing else: libvips's
// wrappers are CVipsShims, libmicrohttpd's and the event loop's are CHTTPShims.
#ifndef TILESCOPE_CLIBCSHIMS_H
#define TILESCOPE_CLIBCSHIMS_H

/// syncfs(2), a GNU extension: writes out every dirty page of the file system `fd` is on.
int ts_syncfs(int fd);

/// mallopt(M_ARENA_MAX, count): malloc.h is not in Swift's Glibc module.
int ts_limit_malloc_arenas(int count);

#endif
