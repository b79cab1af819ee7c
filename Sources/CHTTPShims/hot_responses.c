// Hot responses answered inside libmicrohttpd's access callback, without entering Swift's request
// machinery: a table from an exact request target ("/path?query" as sent) to a response the Swift
// path has already computed (body bytes shared by reference, header values prebuilt), plus the glue
// that puts this lookup in front of Swift's own access and completion callbacks.
//
// Nothing here decides what may be reused: the Swift path fills the table after it has resolved the
// current version, and drops an image's entries when its version changes (see HotResponses.swift).
// A lookup that fails for any reason (other method, a body, repeated or non-ASCII If-None-Match, a
// target too long, no entry) hands the request to Swift unchanged.
#define _GNU_SOURCE  // pthread_rwlockattr_setkind_np
#include "CHTTPShims.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct ts_hot_entry {
    atomic_int refs;              // the table's reference, one per request using it, one per queued response
    struct ts_hot_entry *next;    // bucket chain
    size_t slot;                  // position in table->entries
    atomic_int referenced;        // CLOCK bit: used since the hand last passed (set by lookups under the read lock)
    uint64_t hash;
    char *key;
    size_t key_length;
    char *group;
    char *etag;
    const void *body;
    size_t size;
    void *owner;
    ts_hot_release_fn release;
    unsigned header_count;
    char **names;
    char **values;
    int64_t expires;              // Unix time (seconds) from which the entry answers nothing; 0: never
};

// The table's lock is a readers-writer lock: lookups (every hot tile) share it, inserts and drops take it
// alone. With a mutex the two poll threads' lookups waited for each other: under wrk at 16 connections
// this lock was 94 % of the server's futex calls (550 in 4 s; 4 with the readers-writer lock;
// docs/benchmarks.md), and a
// thread preempted inside its lookup (the poll threads share two cores with the clients) could hold the
// other poll thread for the rest of its time slice. Tail latency did not measurably change (2026-12-03).
struct ts_hot_table {
    pthread_rwlock_t lock;
    struct ts_hot_entry **buckets;
    size_t bucket_mask;
    struct ts_hot_entry **entries;  // dense, for the CLOCK sweep
    size_t count;
    size_t max_entries;
    size_t bytes;
    size_t max_bytes;
    size_t hand;
    uint64_t generation;
    atomic_uint_fast64_t hits;
};

static uint64_t ts_hash(const char *text, size_t length) {
    uint64_t hash = 1469598103934665603ULL;  // FNV-1a
    for (size_t i = 0; i < length; i++) {
        hash ^= (unsigned char) text[i];
        hash *= 1099511628211ULL;
    }
    return hash;
}

static void ts_entry_free(struct ts_hot_entry *entry) {
    if (entry->release) entry->release(entry->owner);
    for (unsigned i = 0; i < entry->header_count; i++) {
        free(entry->names[i]);
        free(entry->values[i]);
    }
    free(entry->names);
    free(entry->values);
    free(entry->key);
    free(entry->group);
    free(entry->etag);
    free(entry);
}

static void ts_entry_release(struct ts_hot_entry *entry) {
    if (atomic_fetch_sub_explicit(&entry->refs, 1, memory_order_acq_rel) == 1) ts_entry_free(entry);
}

ts_hot_table *ts_hot_create(size_t max_entries, size_t max_bytes) {
    if (max_entries == 0) max_entries = 1;
    ts_hot_table *table = calloc(1, sizeof *table);
    if (!table) return NULL;
    size_t buckets = 16;
    while (buckets < max_entries * 2 && buckets < ((size_t) 1 << 30)) buckets <<= 1;
    table->buckets = calloc(buckets, sizeof *table->buckets);
    table->entries = calloc(max_entries, sizeof *table->entries);
    if (!table->buckets || !table->entries) {
        free(table->buckets);
        free(table->entries);
        free(table);
        return NULL;
    }
    atomic_init(&table->hits, 0);
    table->bucket_mask = buckets - 1;
    table->max_entries = max_entries;
    table->max_bytes = max_bytes;
    // Writers first: a stream of overlapping lookups must not keep an insert or a version's drop waiting.
    pthread_rwlockattr_t attributes;
    pthread_rwlockattr_init(&attributes);
    pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&table->lock, &attributes);
    pthread_rwlockattr_destroy(&attributes);
    return table;
}

// Unlinks an entry from its bucket and the dense array (the last entry fills the hole); under the lock.
static void ts_unlink(ts_hot_table *table, struct ts_hot_entry *entry) {
    struct ts_hot_entry **link = &table->buckets[entry->hash & table->bucket_mask];
    while (*link && *link != entry) link = &(*link)->next;
    if (*link) *link = entry->next;
    size_t last = table->count - 1;
    if (entry->slot != last) {
        table->entries[entry->slot] = table->entries[last];
        table->entries[entry->slot]->slot = entry->slot;
    }
    table->count--;
    table->bytes -= entry->size;
    ts_entry_release(entry);
}

static void ts_evict_one(ts_hot_table *table) {
    for (;;) {
        if (table->hand >= table->count) table->hand = 0;
        struct ts_hot_entry *entry = table->entries[table->hand];
        if (atomic_load_explicit(&entry->referenced, memory_order_relaxed)) {
            atomic_store_explicit(&entry->referenced, 0, memory_order_relaxed);
            table->hand++;
            continue;
        }
        ts_unlink(table, entry);
        return;
    }
}

void ts_hot_destroy(ts_hot_table *table) {
    if (!table) return;
    pthread_rwlock_wrlock(&table->lock);
    while (table->count > 0) ts_unlink(table, table->entries[table->count - 1]);
    pthread_rwlock_unlock(&table->lock);
    pthread_rwlock_destroy(&table->lock);
    free(table->buckets);
    free(table->entries);
    free(table);
}

uint64_t ts_hot_generation(ts_hot_table *table) {
    pthread_rwlock_rdlock(&table->lock);
    uint64_t generation = table->generation;
    pthread_rwlock_unlock(&table->lock);
    return generation;
}

static char *ts_copy(const char *text) {
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy) memcpy(copy, text, length + 1);
    return copy;
}

int ts_hot_insert(ts_hot_table *table, uint64_t generation, const char *key, const char *group,
                  const char *etag, const char *const *names, const char *const *values, unsigned header_count,
                  const void *body, size_t size, void *owner, ts_hot_release_fn release) {
    return ts_hot_insert_until(table, generation, key, group, etag, names, values, header_count, body, size, owner,
                               release, 0);
}

int ts_hot_insert_until(ts_hot_table *table, uint64_t generation, const char *key, const char *group,
                        const char *etag, const char *const *names, const char *const *values, unsigned header_count,
                        const void *body, size_t size, void *owner, ts_hot_release_fn release, int64_t expires) {
    size_t key_length = strlen(key);
    if (key_length == 0 || key_length >= TS_HOT_MAX_TARGET || size > table->max_bytes) return 0;
    struct ts_hot_entry *entry = calloc(1, sizeof *entry);
    if (!entry) return 0;
    entry->key = ts_copy(key);
    entry->group = ts_copy(group);
    entry->etag = ts_copy(etag);
    entry->names = calloc(header_count ? header_count : 1, sizeof(char *));
    entry->values = calloc(header_count ? header_count : 1, sizeof(char *));
    int ok = entry->key && entry->group && entry->etag && entry->names && entry->values;
    for (unsigned i = 0; ok && i < header_count; i++) {
        entry->names[i] = ts_copy(names[i]);
        entry->values[i] = ts_copy(values[i]);
        entry->header_count = i + 1;
        ok = entry->names[i] && entry->values[i];
    }
    if (!ok) {
        ts_entry_free(entry);  // release is still NULL: the owner stays the caller's
        return 0;
    }
    entry->key_length = key_length;
    entry->hash = ts_hash(key, key_length);
    entry->body = body;
    entry->size = size;
    entry->expires = expires;
    atomic_init(&entry->refs, 1);
    atomic_init(&entry->referenced, 0);

    pthread_rwlock_wrlock(&table->lock);
    int inserted = 0;
    if (generation == table->generation) {
        struct ts_hot_entry *existing = table->buckets[entry->hash & table->bucket_mask];
        while (existing && !(existing->key_length == key_length && memcmp(existing->key, key, key_length) == 0))
            existing = existing->next;
        if (!existing) {
            while (table->count > 0 && (table->count >= table->max_entries || table->bytes + size > table->max_bytes))
                ts_evict_one(table);
            entry->owner = owner;
            entry->release = release;
            entry->slot = table->count;
            table->entries[table->count++] = entry;
            table->bytes += size;
            struct ts_hot_entry **bucket = &table->buckets[entry->hash & table->bucket_mask];
            entry->next = *bucket;
            *bucket = entry;
            inserted = 1;
        }
    }
    pthread_rwlock_unlock(&table->lock);
    if (!inserted) ts_entry_free(entry);
    return inserted;
}

void ts_hot_drop_group(ts_hot_table *table, const char *group) {
    pthread_rwlock_wrlock(&table->lock);
    table->generation++;
    for (size_t i = table->count; i > 0; i--) {
        struct ts_hot_entry *entry = table->entries[i - 1];
        if (strcmp(entry->group, group) == 0) ts_unlink(table, entry);
    }
    pthread_rwlock_unlock(&table->lock);
}

void ts_hot_drop_expiring(ts_hot_table *table) {
    pthread_rwlock_wrlock(&table->lock);
    table->generation++;
    for (size_t i = table->count; i > 0; i--) {
        struct ts_hot_entry *entry = table->entries[i - 1];
        if (entry->expires != 0) ts_unlink(table, entry);
    }
    pthread_rwlock_unlock(&table->lock);
}

void ts_hot_counts(ts_hot_table *table, size_t *entries, size_t *bytes, uint64_t *hits) {
    pthread_rwlock_rdlock(&table->lock);
    *entries = table->count;
    *bytes = table->bytes;
    *hits = atomic_load_explicit(&table->hits, memory_order_relaxed);
    pthread_rwlock_unlock(&table->lock);
}

// The entry for `key`, with a reference for the caller, or NULL.
static struct ts_hot_entry *ts_hot_lookup(ts_hot_table *table, const char *key, size_t length) {
    uint64_t hash = ts_hash(key, length);
    pthread_rwlock_rdlock(&table->lock);
    struct ts_hot_entry *entry = table->buckets[hash & table->bucket_mask];
    while (entry && !(entry->hash == hash && entry->key_length == length && memcmp(entry->key, key, length) == 0))
        entry = entry->next;
    // An entry past its expiry (a signed URL's) is left for Swift, which answers 401: the wall clock is read
    // only for such entries (time() is a vDSO call, no system call).
    if (entry && entry->expires != 0 && (int64_t) time(NULL) >= entry->expires) entry = NULL;
    if (entry) {
        atomic_fetch_add_explicit(&entry->refs, 1, memory_order_relaxed);
        atomic_store_explicit(&entry->referenced, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&table->hits, 1, memory_order_relaxed);
    }
    pthread_rwlock_unlock(&table->lock);
    return entry;
}

int ts_hot_probe(ts_hot_table *table, const char *key, uint64_t *sum) {
    struct ts_hot_entry *entry = ts_hot_lookup(table, key, strlen(key));
    if (!entry) return 0;
    uint64_t total = 0;
    for (size_t i = 0; i < entry->size; i++) total += ((const unsigned char *) entry->body)[i];
    *sum = total;
    ts_entry_release(entry);
    return 1;
}

// ---- the glue in front of Swift's callbacks ----

struct ts_http_glue {
    MHD_AccessHandlerCallback access;
    void *access_context;
    MHD_RequestCompletedCallback completed;
    void *completed_context;
    ts_hot_table *hot;
    ts_hot_started_fn started;
    ts_hot_finished_fn finished;
    void *hot_context;
};

ts_http_glue *ts_http_glue_create(MHD_AccessHandlerCallback access, void *access_context,
                                  MHD_RequestCompletedCallback completed, void *completed_context,
                                  ts_hot_table *hot, ts_hot_started_fn started, ts_hot_finished_fn finished,
                                  void *hot_context) {
    ts_http_glue *glue = calloc(1, sizeof *glue);
    if (!glue) return NULL;
    *glue = (ts_http_glue) { access, access_context, completed, completed_context, hot, started, finished, hot_context };
    return glue;
}

void ts_http_glue_destroy(ts_http_glue *glue) { free(glue); }

typedef struct {
    struct ts_hot_entry *entry;
    uint64_t start_ns;
    int status;       // 200 or 304, decided from If-None-Match when the head arrived
    int sent_status;  // 0 until queued
    int is_head;
    int had_if_none_match;
} ts_hot_exchange;

// Swift's per-request pointers (objects) are at least 8-byte aligned: a set low bit marks ours.
#define TS_HOT_TAG ((uintptr_t) 1)

static int ts_is_hot(void *pointer) { return pointer && ((uintptr_t) pointer & TS_HOT_TAG); }
static ts_hot_exchange *ts_untag(void *pointer) { return (ts_hot_exchange *) ((uintptr_t) pointer & ~TS_HOT_TAG); }

static uint64_t ts_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t) now.tv_sec * 1000000000ULL + (uint64_t) now.tv_nsec;
}

typedef struct {
    int has_body_header;
    int if_none_match_count;
    const char *if_none_match;
} ts_head_scan;

static enum MHD_Result ts_scan_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void) kind;
    ts_head_scan *scan = cls;
    if (!key) return MHD_YES;
    if (strcasecmp(key, "content-length") == 0 || strcasecmp(key, "transfer-encoding") == 0) {
        scan->has_body_header = 1;
    } else if (strcasecmp(key, "if-none-match") == 0) {
        scan->if_none_match_count++;
        scan->if_none_match = value ? value : "";
    }
    return MHD_YES;
}

typedef struct {
    char *buffer;
    size_t length;
    int count;
    int overflow;
} ts_target;

static void ts_append(ts_target *target, const char *text) {
    size_t length = strlen(text);
    if (target->length + length >= TS_HOT_MAX_TARGET) {
        target->overflow = 1;
        return;
    }
    memcpy(target->buffer + target->length, text, length);
    target->length += length;
}

static enum MHD_Result ts_append_argument(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void) kind;
    ts_target *target = cls;
    ts_append(target, target->count++ == 0 ? "?" : "&");
    ts_append(target, key ? key : "");
    if (value) {
        ts_append(target, "=");
        ts_append(target, value);
    }
    return MHD_YES;
}

// The answer Swift's HTTPCaching.notModified gives: a list of entity tags, `*`, weak tags compared weakly.
// Only ASCII reaches here (Swift trims Unicode spaces that C would not).
static int ts_not_modified(const char *header, const char *etag) {
    size_t etag_length = strlen(etag);
    const char *cursor = header;
    for (;;) {
        const char *end = strchr(cursor, ',');
        if (!end) end = cursor + strlen(cursor);
        const char *start = cursor, *stop = end;
        while (start < stop && (*start == ' ' || *start == '\t')) start++;
        while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t')) stop--;
        if (stop - start == 1 && *start == '*') return 1;
        if (stop - start >= 2 && start[0] == 'W' && start[1] == '/') start += 2;
        if ((size_t) (stop - start) == etag_length && memcmp(start, etag, etag_length) == 0) return 1;
        if (*end == '\0') return 0;
        cursor = end + 1;
    }
}

static int ts_is_ascii(const char *text) {
    for (; *text; text++) if ((unsigned char) *text >= 0x80) return 0;
    return 1;
}

// 1 for HEAD, 0 for GET, -1 for any other method (Swift answers those).
static int ts_hot_method(const char *method) {
    if (strcmp(method, "HEAD") == 0) return 1;
    return strcmp(method, "GET") == 0 ? 0 : -1;
}

// Whether the head scanned may be answered from the table: no body announced, at most one ASCII If-None-Match.
static int ts_head_allows(const ts_head_scan *scan) {
    if (scan->has_body_header || scan->if_none_match_count > 1) return 0;
    return !scan->if_none_match || ts_is_ascii(scan->if_none_match);
}

// The entry for the target rebuilt, with a reference for the caller, and the status it answers (200, or 304
// from If-None-Match); NULL when the target overflowed or is not in the table.
static struct ts_hot_entry *ts_hot_find(ts_hot_table *table, const ts_head_scan *scan, const ts_target *target,
                                        int *status) {
    if (target->overflow) return NULL;
    struct ts_hot_entry *entry = ts_hot_lookup(table, target->buffer, target->length);
    if (entry) *status = scan->if_none_match && ts_not_modified(scan->if_none_match, entry->etag) ? 304 : 200;
    return entry;
}

// The hot exchange for this request, or NULL when Swift must answer it.
static ts_hot_exchange *ts_hot_begin(ts_http_glue *glue, struct MHD_Connection *connection,
                                     const char *url, const char *method) {
    if (!url || !method) return NULL;
    int is_head = ts_hot_method(method);
    if (is_head < 0) return NULL;
    ts_head_scan scan = { 0, 0, NULL };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, ts_scan_header, &scan);
    if (!ts_head_allows(&scan)) return NULL;
    char buffer[TS_HOT_MAX_TARGET];
    ts_target target = { buffer, 0, 0, 0 };
    ts_append(&target, url);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, ts_append_argument, &target);
    int status = 0;
    struct ts_hot_entry *entry = ts_hot_find(glue->hot, &scan, &target, &status);
    if (!entry) return NULL;
    ts_hot_exchange *hot = malloc(sizeof *hot);
    if (!hot) {
        ts_entry_release(entry);
        return NULL;
    }
    hot->entry = entry;
    hot->start_ns = ts_now_ns();
    hot->had_if_none_match = scan.if_none_match != NULL;
    hot->status = status;
    hot->sent_status = 0;
    hot->is_head = is_head;
    return hot;
}

// ts_hot_begin's decision on a head given as arrays, through the same scan, rebuild and match: libmicrohttpd's
// own parsing is all it leaves out.
int ts_hot_decide(ts_hot_table *table, const char *method, const char *url,
                  const char *const *argument_names, const char *const *argument_values, unsigned argument_count,
                  const char *const *header_names, const char *const *header_values, unsigned header_count,
                  char *looked_up, size_t *looked_up_length) {
    *looked_up_length = 0;
    if (!table || !url || !method || ts_hot_method(method) < 0) return 0;
    ts_head_scan scan = { 0, 0, NULL };
    for (unsigned i = 0; i < header_count; i++)
        ts_scan_header(&scan, MHD_HEADER_KIND, header_names[i], header_values[i]);
    if (!ts_head_allows(&scan)) return 0;
    char buffer[TS_HOT_MAX_TARGET];
    ts_target target = { buffer, 0, 0, 0 };
    ts_append(&target, url);
    for (unsigned i = 0; i < argument_count; i++)
        ts_append_argument(&target, MHD_GET_ARGUMENT_KIND, argument_names[i], argument_values[i]);
    if (target.overflow) return 0;
    memcpy(looked_up, buffer, target.length);
    *looked_up_length = target.length;
    int status = 0;
    struct ts_hot_entry *entry = ts_hot_find(table, &scan, &target, &status);
    if (!entry) return 0;
    ts_entry_release(entry);
    return status;
}

static void ts_release_response_entry(void *cls) { ts_entry_release(cls); }

static enum MHD_Result ts_hot_queue(struct MHD_Connection *connection, ts_hot_exchange *hot) {
    struct ts_hot_entry *entry = hot->entry;
    struct MHD_Response *response;
    if (hot->status == 200) {
        atomic_fetch_add_explicit(&entry->refs, 1, memory_order_relaxed);  // released when the response is freed
        response = MHD_create_response_from_buffer_with_free_callback_cls(entry->size, (void *) entry->body,
                                                                          ts_release_response_entry, entry);
        if (!response) {
            ts_entry_release(entry);
            return MHD_NO;
        }
    } else {
        response = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        if (!response) return MHD_NO;
    }
    for (unsigned i = 0; i < entry->header_count; i++) MHD_add_response_header(response, entry->names[i], entry->values[i]);
    // As Swift's Server.send writes it: milliseconds with three decimals, after the handler's headers.
    uint64_t micros = (ts_now_ns() - hot->start_ns + 500) / 1000;
    char timing[48];
    snprintf(timing, sizeof timing, "total;dur=%llu.%03llu", (unsigned long long) (micros / 1000),
             (unsigned long long) (micros % 1000));
    MHD_add_response_header(response, "Server-Timing", timing);
    hot->sent_status = hot->status;
    enum MHD_Result result = MHD_queue_response(connection, (unsigned int) hot->status, response);
    MHD_destroy_response(response);
    return result;
}

enum MHD_Result ts_glue_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **request_context) {
    ts_http_glue *glue = cls;
    void *stored = *request_context;
    if (ts_is_hot(stored)) {
        ts_hot_exchange *hot = ts_untag(stored);
        // No body was announced; anything sent anyway is read and dropped, as Swift's path drops it.
        if (upload_data_size && *upload_data_size > 0) {
            *upload_data_size = 0;
            return MHD_YES;
        }
        if (hot->sent_status) return MHD_YES;
        return ts_hot_queue(connection, hot);
    }
    if (!stored && glue->hot) {
        ts_hot_exchange *hot = ts_hot_begin(glue, connection, url, method);
        if (hot) {
            // Answered on the next call: queueing in the first one would cost keep-alive (docs/platform.md).
            *request_context = (void *) ((uintptr_t) hot | TS_HOT_TAG);
            glue->started(glue->hot_context, connection);
            return MHD_YES;
        }
    }
    return glue->access(glue->access_context, connection, url, method, version, upload_data, upload_data_size,
                        request_context);
}

void ts_glue_completed(void *cls, struct MHD_Connection *connection, void **request_context,
                       enum MHD_RequestTerminationCode code) {
    ts_http_glue *glue = cls;
    if (request_context && ts_is_hot(*request_context)) {
        ts_hot_exchange *hot = ts_untag(*request_context);
        *request_context = NULL;
        struct ts_hot_entry *entry = hot->entry;
        int ok = code == MHD_REQUEST_TERMINATED_COMPLETED_OK;
        ts_hot_done done = {
            .target = entry->key,
            .target_length = entry->key_length,
            .status = hot->sent_status,
            // As Swift counts it: none of an aborted response, no body for HEAD or 304.
            .bytes_sent = ok && !hot->is_head && hot->sent_status == 200 ? entry->size : 0,
            .seconds = (double) (ts_now_ns() - hot->start_ns) / 1e9,
            .completed_normally = ok,
            .is_head = hot->is_head,
            .had_if_none_match = hot->had_if_none_match,
        };
        glue->finished(glue->hot_context, connection, &done);
        ts_entry_release(entry);
        free(hot);
        return;
    }
    glue->completed(glue->completed_context, connection, request_context, code);
}
