// Non-variadic wrappers for libvips, libmicrohttpd and libc calls that Swift cannot make
// (variadic functions, macros, GNU extensions), plus the two callbacks that must be C
// (a signal handler that frees memory, a panic handler that reads errno first).
// Each does one thing; no application logic lives here.
#ifndef TILESCOPE_CSHIMS_H
#define TILESCOPE_CSHIMS_H

#include <vips/vips.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

// ---- libvips ----

/// VIPS_INIT is a macro.
int ts_vips_init(const char *argv0);

/// Opens an image lazily (header only). `sequential` chooses VIPS_ACCESS_SEQUENTIAL,
/// which lets whole-image pipelines (dzsave) stream without a full decode.
/// The path is taken literally: "[...]" in it is never parsed as loader options.
/// `fail` sets fail_on=error, for untrusted input.
VipsImage *ts_image_open(const char *path, int sequential, int fail);

/// Opens a JPEG decoded at 1/`shrink` scale (1, 2, 4 or 8) by libjpeg's DCT scaling, sequentially:
/// a preview without decoding the image whole. The path is taken literally (`vips_jpegload`).
VipsImage *ts_jpeg_open_shrunk(const char *path, int shrink, int fail);

/// Decodes an encoded image held in memory (a tile just encoded, to measure its picture) into
/// 8-bit pixels: a libvips image computed into memory, so `buf` may go away afterwards.
VipsImage *ts_image_decode_buffer(const void *buf, size_t len);

/// Computes rows [top, top + height) of `image`, every column, through `region` (made with
/// `vips_region_new(image)`) and copies them into `out`, `width * bands` bytes a row (8-bit images).
/// Rows must be asked for top to bottom without overlap: a sequential source reads forward only.
int ts_region_read_rows(VipsRegion *region, int top, int height, unsigned char *out);

/// The image computed once into memory, so that several outputs can read a sequential source.
int ts_copy_memory(VipsImage *in, VipsImage **out);

/// mallopt(M_ARENA_MAX, count): malloc.h is not in Swift's Glibc module.
int ts_limit_malloc_arenas(int count);

/// Deep Zoom pyramid: `<basename>.dzi` and `<basename>_files/`, JPEG tiles.
int ts_dzsave(VipsImage *in, const char *basename, int tile_size, int overlap, int quality);

int ts_jpegsave(VipsImage *in, const char *path, int quality);
int ts_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality);
int ts_pngsave_buffer(VipsImage *in, void **buf, size_t *len);
int ts_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
int ts_arrayjoin(VipsImage **in, int n, VipsImage **out, int across);
int ts_flatten(VipsImage *in, VipsImage **out, double r, double g, double b);
int ts_colourspace_srgb(VipsImage *in, VipsImage **out);
int ts_cast_uchar(VipsImage *in, VipsImage **out);
int ts_resize(VipsImage *in, VipsImage **out, double hscale, double vscale);
int ts_shrink(VipsImage *in, VipsImage **out, double hshrink, double vshrink);
int ts_linear1(VipsImage *in, VipsImage **out, double a, double b);
int ts_zone(VipsImage **out, int width, int height);
int ts_replicate(VipsImage *in, VipsImage **out, int across, int down);
int ts_add(VipsImage *left, VipsImage *right, VipsImage **out);
/// Enlarges by whole factors, repeating each pixel (nearest neighbour, lazy).
int ts_zoom(VipsImage *in, VipsImage **out, int xfac, int yfac);
/// Maps each pixel through a lookup table image (a row of entries, one per input value).
int ts_maplut(VipsImage *in, VipsImage **out, VipsImage *lut);

// Region rendering (IIIF).
/// Encodes to the format named by `suffix` (".jpg[Q=85]", ".png", ...). `suffix` is
/// always a constant chosen by the caller, never request text.
int ts_save_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len);
/// Wraps `data` (from malloc: `width` x `height` pixels of `bands` uchar, sRGB when 3 bands,
/// B_W when 1) as an image that frees it when the image closes (g_signal_connect is a macro).
/// NULL on failure, and `data` is then still the caller's.
VipsImage *ts_image_from_malloc(void *data, size_t size, int width, int height, int bands);
/// vips_resize with a chosen kernel (VIPS_KERNEL_LINEAR, _CUBIC, _LANCZOS3...).
int ts_resize_kernel(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel);
/// Mirrors left to right.
int ts_flip_horizontal(VipsImage *in, VipsImage **out);
/// Rotates clockwise by a multiple of 90 degrees (`quarter_turns` 0..3), exactly.
int ts_rot90s(VipsImage *in, VipsImage **out, int quarter_turns);
/// Rotates clockwise by any angle; the new corners are `background` on every band.
int ts_rotate(VipsImage *in, VipsImage **out, double angle, double background);
/// Adds an opaque alpha band.
int ts_addalpha(VipsImage *in, VipsImage **out);
int ts_colourspace_bw(VipsImage *in, VipsImage **out);
/// 255 where a pixel is >= `threshold`, else 0.
int ts_moreeq_const(VipsImage *in, VipsImage **out, double threshold);

// A source as it is shown: upright, in sRGB.
/// The EXIF/TIFF orientation libvips read (1 to 8), 1 when there is none or it is out of range.
int ts_orientation(VipsImage *in);
/// Applies the orientation tag (vips_autorot); the result carries none.
int ts_autorot(VipsImage *in, VipsImage **out);
/// Whether the image carries an ICC profile.
int ts_has_icc(VipsImage *in);
/// The image's ICC profile (owned by the image) and its length, or NULL.
const void *ts_icc_profile(VipsImage *in, size_t *length);
/// A copy of `in` carrying `from`'s ICC profile (a reduced decode made without libvips gets its source's).
int ts_with_icc_of(VipsImage *in, VipsImage *from, VipsImage **out);
/// Converts through the embedded ICC profile to 8-bit sRGB, relative colorimetric (libvips's icc_transform).
int ts_icc_to_srgb(VipsImage *in, VipsImage **out);
/// A copy without the metadata that would mislead once the pixels are upright sRGB: the ICC profile,
/// EXIF and the orientation.
int ts_without_profile(VipsImage *in, VipsImage **out);
/// Band `band` alone.
int ts_extract_band(VipsImage *in, VipsImage **out, int band);
/// Enlarged to `width` x `height` at the top left, the new pixels copies of the nearest edge.
int ts_embed_copy(VipsImage *in, VipsImage **out, int width, int height);
/// Writes the image to `path` in libvips's own format, streaming it; the path is taken literally.
int ts_write_vips(VipsImage *in, const char *path);

/// Lossless copy for exact regions: a tiled (256 px), pyramidal, deflate-compressed TIFF with the
/// horizontal predictor, each page half the one before.
int ts_tiffsave_pyramid(VipsImage *in, const char *path);
/// Opens page `page` of a TIFF for random access (header only). The path is taken literally.
VipsImage *ts_tiffload_page(const char *path, int page);
/// Called from libvips's "eval" signal while an image computes; runs on the computing thread.
typedef void (*ts_progress_fn)(void *context, int percent, int eta_seconds);
/// Enables progress on `image` and forwards its eval signal to `callback`; returns the handler id.
unsigned long ts_progress_connect(VipsImage *image, ts_progress_fn callback, void *context);
/// Disconnects a handler of `ts_progress_connect`: the image may outlive its observer.
void ts_progress_disconnect(VipsImage *image, unsigned long handler);

// ---- the file system ----

/// syncfs(2), a GNU extension Swift's Glibc module does not show: writes out every dirty page of the
/// file system `fd` is on.
int ts_syncfs(int fd);

// ---- libmicrohttpd ----

/// Installs a panic handler that lets one benign libmicrohttpd 0.9.75 panic pass: removing the
/// listening socket from an epoll set that no longer holds it (ENOENT). MHD_quiesce_daemon and a
/// pool thread both remove it, unsynchronised, and the loser aborts the process, which made a
/// graceful stop crash now and then. Every other panic still prints and aborts. In C, because
/// errno must be read before anything else runs.
void ts_mhd_install_panic_handler(void);

/// Rewrites a URL string in place and returns its new length (MHD_OPTION_UNESCAPE_CALLBACK).
typedef size_t (*ts_unescape_fn)(void *context, struct MHD_Connection *connection, char *text);

// ---- hot responses (hot_responses.c) ----

/// The longest request target ("/path?query", as sent) the hot table keys on.
#define TS_HOT_MAX_TARGET 1024

/// A table from exact request targets to responses the Swift path computed: see hot_responses.c and
/// Sources/HTTPServer/HotResponses.swift. Thread-safe (one mutex).
typedef struct ts_hot_table ts_hot_table;
/// Drops the caller's reference to a body's owner (called when the last response using it is freed).
typedef void (*ts_hot_release_fn)(void *owner);

/// A table of at most `max_entries` entries and `max_bytes` body bytes (CLOCK eviction); NULL on failure.
ts_hot_table *ts_hot_create(size_t max_entries, size_t max_bytes);
/// Frees the table; responses still in flight keep their entries until they are sent.
void ts_hot_destroy(ts_hot_table *table);
/// Bumped by every drop: read it before resolving what an entry will say, pass it to the insert.
uint64_t ts_hot_generation(ts_hot_table *table);
/// Adds an entry unless the generation moved since `generation` was read (a drop happened meanwhile),
/// the key is already there, or it cannot fit. Strings are copied; `body` (`size` bytes, never written)
/// stays owned by `owner` until `release(owner)`. Returns 1 if inserted (the table then owns `owner`'s
/// reference), 0 if not (the caller keeps it).
int ts_hot_insert(ts_hot_table *table, uint64_t generation, const char *key, const char *group,
                  const char *etag, const char *const *names, const char *const *values, unsigned header_count,
                  const void *body, size_t size, void *owner, ts_hot_release_fn release);
/// Removes every entry of `group` and bumps the generation.
void ts_hot_drop_group(ts_hot_table *table, const char *group);
void ts_hot_counts(ts_hot_table *table, size_t *entries, size_t *bytes, uint64_t *hits);
// Looks `key` up as a request does (the entry held while it is read) and sums its body's bytes into *sum:
// 1 if found. For tests of the table under concurrent lookups, inserts and drops.
int ts_hot_probe(ts_hot_table *table, const char *key, uint64_t *sum);

/// A request answered from the table, reported when libmicrohttpd completes it. `target` is valid
/// only during the call.
typedef struct {
    const char *target;
    size_t target_length;
    int status;
    size_t bytes_sent;
    double seconds;
    int completed_normally;
    int is_head;
    int had_if_none_match;
} ts_hot_done;
/// Called when a request is found in the table (its head is complete), before it is answered.
typedef void (*ts_hot_started_fn)(void *context, struct MHD_Connection *connection);
/// Called when a request answered from the table completes.
typedef void (*ts_hot_finished_fn)(void *context, struct MHD_Connection *connection, const ts_hot_done *done);

/// What a daemon's access and completion callbacks are: the hot table first (when `hot` is not NULL),
/// Swift's callbacks for everything else.
typedef struct ts_http_glue ts_http_glue;
ts_http_glue *ts_http_glue_create(MHD_AccessHandlerCallback access, void *access_context,
                                  MHD_RequestCompletedCallback completed, void *completed_context,
                                  ts_hot_table *hot, ts_hot_started_fn started, ts_hot_finished_fn finished,
                                  void *hot_context);
void ts_http_glue_destroy(ts_http_glue *glue);
enum MHD_Result ts_glue_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **request_context);
void ts_glue_completed(void *cls, struct MHD_Connection *connection, void **request_context,
                       enum MHD_RequestTerminationCode code);

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
