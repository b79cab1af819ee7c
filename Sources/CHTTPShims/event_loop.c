// What the HTTP server's own threads need from libc that Swift's Glibc module does not show: the event loop's
// wake-up (eventfd), an epoll registration libmicrohttpd's loop skips, and thread names (poll threads, workers).
#define _GNU_SOURCE  // pthread_setname_np
#include "CHTTPShims.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

int ts_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int ts_epoll_add_silent(int epoll, int fd) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN | EPOLLET;
    event.data.ptr = NULL;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

void ts_set_thread_name(const char *name) {
    char shortened[16];
    snprintf(shortened, sizeof shortened, "%s", name);
    pthread_setname_np(pthread_self(), shortened);
}
