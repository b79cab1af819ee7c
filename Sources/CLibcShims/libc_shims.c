#define _GNU_SOURCE  // syncfs
#include "CLibcShims.h"
#include <malloc.h>
#include <unistd.h>

int ts_syncfs(int fd) { return syncfs(fd); }

int ts_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
