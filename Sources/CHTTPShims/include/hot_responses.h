// Hot responses: GET and HEAD requests answered inside libmicrohttpd's access callback, in C, from a table
// of answers the Swift path computed (hot_responses.c says how and why). Part of CHTTPShims.
#ifndef TILESCOPE_HOT_RESPONSES_H
#define TILESCOPE_HOT_RESPONSES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// The longest request target ("/path?query", as sent) the hot table keys on.
#define TS_HOT_MAX_TARGET 1024

/// A table from exact request targets to responses the Swift path computed: see hot_responses.c and
/// Sources/HTTPServer/HotResponses.swift. Thread-safe (one readers-writer lock).
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
/// `ts_hot_insert` for an entry that answers nothing from Unix time `expires` (seconds) on (0: never): a
/// signed URL's answer, whose target carries a credential that expires. Lookups past it miss, so Swift
/// answers (and refuses) the request.
int ts_hot_insert_until(ts_hot_table *table, uint64_t generation, const char *key, const char *group,
                        const char *etag, const char *const *names, const char *const *values, unsigned header_count,
                        const void *body, size_t size, void *owner, ts_hot_release_fn release, int64_t expires);
/// Removes every entry that has an expiry (every signed URL's answer) and bumps the generation: for when the
/// credentials in their targets may have been revoked (a signing key retired).
void ts_hot_drop_expiring(ts_hot_table *table);
/// Removes every entry of `group` and bumps the generation.
void ts_hot_drop_group(ts_hot_table *table, const char *group);
void ts_hot_counts(ts_hot_table *table, size_t *entries, size_t *bytes, uint64_t *hits);
// Looks `key` up as a request does (the entry held while it is read) and sums its body's bytes into *sum:
// 1 if found. For tests of the table under concurrent lookups, inserts and drops.
int ts_hot_probe(ts_hot_table *table, const char *key, uint64_t *sum);

/// What the access callback decides for a request whose head libmicrohttpd parsed into `method`, `url` (the path
/// as sent), the query `arguments` in order (a NULL value for a name without "=") and the `headers`: 200 or 304
/// when the table answers it, 0 when Swift does. The same code as for a real connection, short of libmicrohttpd's
/// parsing; the target it looked up (not NUL-terminated) is copied into `looked_up` (TS_HOT_MAX_TARGET bytes),
/// its length into `looked_up_length` (0 when it looked nothing up). For tests and the hot-responses fuzz target.
int ts_hot_decide(ts_hot_table *table, const char *method, const char *url,
                  const char *const *argument_names, const char *const *argument_values, unsigned argument_count,
                  const char *const *header_names, const char *const *header_values, unsigned header_count,
                  char *looked_up, size_t *looked_up_length);

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

#endif
