// libmicrohttpd's daemon started and asked about without its variadic calls, and the panic handler.
#include "CHTTPShims.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ts_mhd_panic(void *context, const char *file, unsigned int line, const char *reason) {
    int error = errno;
    (void)context;
    if (error == ENOENT && reason && strstr(reason, "listen FD from epoll")) {
        // The socket is already out of that epoll set, which is all the failed call wanted;
        // libmicrohttpd records it as removed right after this returns.
        return;
    }
    fprintf(stderr, "Fatal error in GNU libmicrohttpd %s:%u: %s\n", file ? file : "?", line, reason ? reason : "");
    abort();
}

void ts_mhd_install_panic_handler(void) {
    MHD_set_panic_func(ts_mhd_panic, NULL);
}

struct MHD_Daemon *ts_mhd_start_loop(unsigned int flags, uint16_t port, const char *host, int listen_socket,
                                     ts_http_glue *glue, ts_unescape_fn unescape,
                                     MHD_NotifyConnectionCallback notify, void *notify_context,
                                     unsigned int connection_limit, unsigned int connection_timeout,
                                     size_t connection_memory_limit, unsigned int listen_backlog) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    if (host != NULL && inet_pton(AF_INET, host, &address.sin_addr) != 1) return NULL;
    // libmicrohttpd 0.9.75 sends a file response with sendfile only when the application says it
    // handles SIGPIPE (sendfile has no MSG_NOSIGNAL); otherwise it reads and sends the file 4 KB at a
    // time (a pread and a send each, seen with strace). Ignoring SIGPIPE is what that promise needs:
    // a peer that closes mid-file then costs an EPIPE, not the process.
    signal(SIGPIPE, SIG_IGN);
    if (listen_socket >= 0) {
        return MHD_start_daemon(flags, port, NULL, NULL, ts_glue_access, glue,
            MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_socket,
            MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
            MHD_OPTION_NOTIFY_COMPLETED, ts_glue_completed, glue,
            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
            MHD_OPTION_SIGPIPE_HANDLED_BY_APP, (int) 1,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, port, NULL, NULL, ts_glue_access, glue,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &address,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, ts_glue_completed, glue,
        MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, listen_backlog,
        MHD_OPTION_SIGPIPE_HANDLED_BY_APP, (int) 1,
        MHD_OPTION_END);
}

int ts_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

int ts_mhd_listen_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    return info ? info->listen_fd : -1;
}

unsigned int ts_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

struct MHD_Daemon *ts_mhd_connection_daemon(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_DAEMON);
    return info ? info->daemon : NULL;
}

uint16_t ts_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

int ts_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

void *ts_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

int ts_mhd_client_address(struct MHD_Connection *connection, unsigned char *bytes) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        memcpy(bytes, &((const struct sockaddr_in *) address)->sin_addr, 4);
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        memcpy(bytes, &((const struct sockaddr_in6 *) address)->sin6_addr, 16);
        return 16;
    }
    return 0;
}
