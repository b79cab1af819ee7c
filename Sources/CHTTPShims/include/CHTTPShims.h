// libmicrohttpd for HTTPServer: non-variadic wrappers for the calls Swift cannot make (MHD_start_daemon's
// option list, the info unions), the panic handler that must be C (it reads errno first), the helpers the
// server's own event loop needs from libc, and the hot responses (hot_responses.h): GET and HEAD requests
// answered from a table inside libmicrohttpd's access callback, in C, before Swift's callbacks.
// Nothing here knows libvips: Imaging's C wrappers are CVipsShims.
#ifndef TILESCOPE_CHTTPSHIMS_H
#define TILESCOPE_CHTTPSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "hot_responses.h"

/// Installs a panic handler that lets one benign libmicrohttpd 0.9.75 panic pass: removing the
/// listening socket from an epoll set that no longer holds it (ENOENT). MHD_quiesce_daemon and a
/// pool thread both remove it, unsynchronised, and the loser aborts the process, which made a
/// graceful stop crash now and then. Every other panic still prints and aborts. In C, because
/// errno must be read before anything else runs.
void ts_mhd_install_panic_handler(void);

/// Rewrites a URL string in place and returns its new length (MHD_OPTION_UNESCAPE_CALLBACK).
typedef size_t (*ts_unescape_fn)(void *context, struct MHD_Connection *connection, char *text);

/// MHD_start_daemon for a daemon run by the caller's own event loop (no MHD_USE_INTERNAL_POLLING_THREAD,
/// no thread pool): see Sources/HTTPServer/EventLoop.swift for why. `listen_socket` >= 0 makes the
/// daemon accept on that already listening socket (shared with other daemons) instead of binding.
/// Requests go to `glue`: ts_glue_access and ts_glue_completed.
struct MHD_Daemon *ts_mhd_start_loop(unsigned int flags, uint16_t port, const char *host, int listen_socket,
                                     ts_http_glue *glue, ts_unescape_fn unescape,
                                     MHD_NotifyConnectionCallback notify, void *notify_context,
                                     unsigned int connection_limit, unsigned int connection_timeout,
                                     size_t connection_memory_limit, unsigned int listen_backlog);

/// The daemon's epoll descriptor (MHD_USE_EPOLL), to wait on from an external loop; -1 if none.
int ts_mhd_epoll_fd(struct MHD_Daemon *daemon);

/// The daemon's listening socket, or -1.
int ts_mhd_listen_fd(struct MHD_Daemon *daemon);

/// Connections the daemon holds open (MHD_DAEMON_INFO_CURRENT_CONNECTIONS). For a daemon run by an
/// external loop it first frees the connections already closed: call it only from that loop's thread.
unsigned int ts_mhd_connection_count(struct MHD_Daemon *daemon);

/// The daemon that serves the connection.
struct MHD_Daemon *ts_mhd_connection_daemon(struct MHD_Connection *connection);

/// A non-blocking, close-on-exec eventfd (an event loop's wake-up), or -1. eventfd(2) is not in
/// Swift's Glibc module.
int ts_eventfd(void);

/// Adds `fd` to the epoll set `epoll` for input, edge-triggered, with a NULL `data.ptr` (which
/// libmicrohttpd's own epoll loop skips). 0 on success, -1 with errno.
int ts_epoll_add_silent(int epoll, int fd);

/// Names the calling thread (15 characters at most are kept), for top, perf and gdb.
void ts_set_thread_name(const char *name);

/// The port the daemon listens on (useful after binding port 0).
uint16_t ts_mhd_bound_port(struct MHD_Daemon *daemon);

/// The connection's socket, or -1.
int ts_mhd_connection_fd(struct MHD_Connection *connection);

/// The pointer the connection-notify callback stored for this connection (its socket context), or NULL.
void *ts_mhd_socket_context(struct MHD_Connection *connection);

/// Copies the client's IP address, in network byte order, into `bytes` (room for 16); returns its length:
/// 4 (IPv4), 16 (IPv6), or 0 when libmicrohttpd has none.
int ts_mhd_client_address(struct MHD_Connection *connection, unsigned char *bytes);

#endif
