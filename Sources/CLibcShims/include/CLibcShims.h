// libc calls Swift's Glibc module does not show (GNU extensions, malloc.h), for the Swift code that needs
// them: Tilescope's pyramid store (syncfs), Imaging's builds (mallopt), thread names and priorities (the HTTP server's
// poll threads and workers, the application's work queues). Nothing else: libvips's
// wrappers are CVipsShims, libmicrohttpd's and the event loop's are CHTTPShims.
#ifndef TILESCOPE_CLIBCSHIMS_H
#define TILESCOPE_CLIBCSHIMS_H

/// syncfs(2), a GNU extension: writes out every dirty page of the file system `fd` is on.
int ts_syncfs(int fd);

/// mallopt(M_ARENA_MAX, count): malloc.h is not in Swift's Glibc module.
int ts_limit_malloc_arenas(int count);

/// mallopt(M_MMAP_THRESHOLD, bytes): blocks of `bytes` and more are mapped alone and unmapped when freed; setting it
/// turns off glibc's dynamic threshold.
int ts_set_malloc_mmap_threshold(int bytes);

/// Names the calling thread (15 characters at most are kept), for top, perf and gdb.
void ts_set_thread_name(const char *name);

/// Sets the calling thread's nice value (10: runs when the normal-priority threads leave the CPU free), for the
/// threads doing work that may wait (renders over a client's budget, encodings behind replies, builds). 0 or -1.
int ts_lower_thread_priority(int niceness);

#endif
