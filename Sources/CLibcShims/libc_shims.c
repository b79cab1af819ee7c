#define _GNU_SOURCE  // syncfs, pthread_setname_np
#include "CLibcShims.h"
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int ts_syncfs(int fd) { return syncfs(fd); }

int ts_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

void ts_set_thread_name(const char *name) {
    char shortened[16];
    snprintf(shortened, sizeof shortened, "%s", name);
    pthread_setname_np(pthread_self(), shortened);
}
