#define _GNU_SOURCE  // syncfs, pthread_setname_np
#include "CLibcShims.h"
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <unistd.h>

int ts_syncfs(int fd) { return syncfs(fd); }

int ts_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int ts_set_malloc_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

void ts_set_thread_name(const char *name) {
    char shortened[16];
    snprintf(shortened, sizeof shortened, "%s", name);
    pthread_setname_np(pthread_self(), shortened);
}

int ts_lower_thread_priority(int niceness) {
    // Linux keeps a nice value per thread: PRIO_PROCESS with a thread id sets that thread's alone, and the
    // threads it starts inherit it. Raising it needs no privilege; lowering it again would.
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
}
