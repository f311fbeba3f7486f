/* run — the read API of a run store (mw_run.h). A cursor is one prepared statement over one
 * table, stepped by its typed next function; nothing is held beyond the current row, so
 * readers stream. The phase filter becomes a WHERE clause whose every value is a bound
 * parameter (kinds and names never enter the SQL text). Schema version 1 runs have no
 * phases.pid nor phases.peer: they read as 0 and -1, the columns' defaults in version 2.
 * Columns handed out in 32 bits (powers, volts, currents, channels, ranks...) are read as
 * 64-bit and refused when out of range, never truncated: a forged power_mw of INT64_MAX is
 * an error naming the column and value (mw_store_bad_input: exit 2), not -1 mW.
 *
 * Version 3 keeps chatty processes' events in phase_blocks (docs/run-store.md): a phase
 * cursor then merges the rows of phases with the blocks' events (phase_codec.h) in the
 * cursor's order. Blocks are read in the order of their first event's key; each block's
 * events ascend, so a block need only be opened (its blob copied, its events decoded one at
 * a time) once the next unread block's first key is no later than every open block's current
 * event: memory holds the blocks that overlap in time (about one per thread), not the run.
 * Rows of phases come before block events of the same key, blocks among themselves by id.
 * The filter's kinds and name become a keep flag per phase_names id.
 *
 * Version 4 adds the in-band tables, made with a run's first in-band source: a run without
 * them (versions 1 to 3, or 4 without in-band sources) has no rows in them.
 *
 * Version 5 records several meters in one run (table meters, channels.meter and
 * meter_channel, gaps.meter). An older run reads as one meter: meter 1, named by the serial
 * of its meta meter_usb ("VID:PID SERIAL") or else "meter", with its port from meta
 * meter_port and the recording host's clock (offset 0); its channels are that meter's
 * (meter_channel = channel) and its gaps the whole run's (meter 0). */
#include "mw_run.h"

#include "mw_alloc.h"
#include "phase_codec.h"
#include "run_rows.h"
#include "store_inband.h"
#include "store_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MAX_BINDS 64

typedef enum {
    CUR_CHANNELS,
    CUR_METERS,
    CUR_WINDOWS,
    CUR_PHASES,
    CUR_GAPS,
    CUR_META,
    CUR_POWERS,
    CUR_INBAND_CHANNELS,
    CUR_INBAND_WINDOWS,
    CUR_INBAND_GAPS
} cursor_kind;

typedef struct run_blocks run_blocks;

struct mw_run_cursor {
    mw_store *s;
    sqlite3_stmt *st;
    cursor_kind kind;
    const char *what; /* for messages: "reading the phases" */
    run_blocks *b;    /* phase cursors of a version 3 store: the blocks' side */
    mw_run_rows *rows; /* window cursors of a version 6 store (run_rows.h): st is NULL */
    mw_store_sample row; /* its current sample */
};

static void blocks_free(run_blocks *b);

static mw_run_cursor *cursor_open(mw_store *s, cursor_kind kind, const char *sql, const char *what)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK) {
        mw_store_db_error(s, what);
        return NULL;
    }
    mw_run_cursor *c = mw_xcalloc(1, sizeof *c);
    *c = (mw_run_cursor){.s = s, .st = st, .kind = kind, .what = what};
    return c;
}

/* 1 with a row, 0 at the end, -1 on error (message in the store) */
static int cursor_step(mw_run_cursor *c, cursor_kind kind)
{
    if (!c || c->kind != kind) return -1;
    if (c->rows) return mw_run_rows_next(c->rows, &c->row);
    int rc = sqlite3_step(c->st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return mw_store_db_error(c->s, c->what);
}

/* Column col as a value in [lo, hi]; out of it, the first such column of the row sets the
 * store's error and *bad, and 0 comes back. */
static int64_t col_in(mw_run_cursor *c, int col, int64_t lo, int64_t hi, int *bad)
{
    int64_t v = sqlite3_column_int64(c->st, col);
    if (v >= lo && v <= hi) return v;
    if (!*bad)
        mw_store_bad_value(c->s, "%s: %s = %" PRId64 " is out of its range %" PRId64 "..%" PRId64,
                           c->what, sqlite3_column_name(c->st, col), v, lo, hi);
    *bad = 1;
    return 0;
}
#define COL_I32(c, col, bad) ((int32_t)col_in((c), (col), INT32_MIN, INT32_MAX, (bad)))
#define COL_U32(c, col, bad) ((uint32_t)col_in((c), (col), 0, UINT32_MAX, (bad)))

static const char *text_or(sqlite3_stmt *st, int col, const char *dflt)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : dflt;
}

void mw_run_close(mw_run_cursor *c)
{
    if (!c) return;
    sqlite3_finalize(c->st);
    blocks_free(c->b);
    mw_run_rows_close(c->rows);
    free(c);
}

/* ---- channels ---------------------------------------------------------------------------- */

mw_run_cursor *mw_run_channels(mw_store *s)
{
    return cursor_open(s, CUR_CHANNELS,
                       mw_store_schema(s) >= 5
                           ? "SELECT channel, name, host, pin, meter, meter_channel FROM channels "
                             "ORDER BY channel"
                           : "SELECT channel, name, host, pin, 1, channel FROM channels "
                             "ORDER BY channel",
                       "reading the channels");
}

int mw_run_channel_next(mw_run_cursor *c, mw_run_channel *out)
{
    int rc = cursor_step(c, CUR_CHANNELS), bad = 0;
    if (rc != 1) return rc;
    out->channel = COL_I32(c, 0, &bad);
    out->name = text_or(c->st, 1, "");
    out->host = text_or(c->st, 2, NULL);
    out->pin = text_or(c->st, 3, NULL);
    out->meter = (int)col_in(c, 4, 1, INT32_MAX, &bad);
    out->meter_channel = sqlite3_column_type(c->st, 5) == SQLITE_NULL
                             ? 0
                             : (int)col_in(c, 5, 1, INT32_MAX, &bad);
    return bad ? -1 : 1;
}

/* ---- meters ------------------------------------------------------------------------------ */

mw_run_cursor *mw_run_meters(mw_store *s)
{
    return cursor_open(
        s, CUR_METERS,
        mw_store_schema(s) >= 5
            ? "SELECT meter, name, host, port, clock_offset_ns, clock_uncertainty_ns FROM meters "
              "ORDER BY meter"
            /* an older run: its one meter, from the meta; the serial is what follows the
             * space of "VID:PID SERIAL" (absent: "none", "none (simulated board)") */
            : "SELECT 1, coalesce((SELECT CASE WHEN value LIKE 'none%' OR instr(value, ' ') = 0 "
              "THEN NULL ELSE nullif(trim(substr(value, instr(value, ' ') + 1)), '') END FROM "
              "meta WHERE key = 'meter_usb'), 'meter'), (SELECT value FROM meta WHERE key = "
              "'hostname'), (SELECT value FROM meta WHERE key = 'meter_port'), 0, 0",
        "reading the meters");
}

int mw_run_meter_next(mw_run_cursor *c, mw_run_meter *out)
{
    int rc = cursor_step(c, CUR_METERS), bad = 0;
    if (rc != 1) return rc;
    out->meter = (int)col_in(c, 0, 1, INT32_MAX, &bad);
    out->name = text_or(c->st, 1, "");
    out->host = text_or(c->st, 2, NULL);
    out->port = text_or(c->st, 3, NULL);
    out->clock_offset_ns = sqlite3_column_int64(c->st, 4);
    out->clock_uncertainty_ns = sqlite3_column_int64(c->st, 5);
    return bad ? -1 : 1;
}

/* ---- windows ----------------------------------------------------------------------------- */

/* Version 6 keeps a window's channels in one row of windows (docs/run-store.md): its
 * cursors are run_rows.h's, which give the same samples in the same orders, ties included
 * (version 5's index, then its primary key (segment, seq, channel)). */
#define RUN_SAMPLE_COLS                                                                            \
    "SELECT channel, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns, uncertainty_ns, "       \
    "power_mw, vrms_mv, irms_ua, pf_milli, meter_energy_mj, energy_mj, flags FROM samples"

/* A version 6 run's window cursor: no statement of its own, rows (run_rows.h) instead. */
static mw_run_cursor *rows_cursor(mw_store *s, cursor_kind kind, int channel,
                                  mw_run_window_order order, int full, int names)
{
    mw_run_rows *r = mw_run_rows_open(s, channel, order == MW_RUN_BY_TIME, full, names,
                                      "reading the samples");
    if (!r) return NULL;
    mw_run_cursor *c = mw_xcalloc(1, sizeof *c);
    *c = (mw_run_cursor){.s = s, .kind = kind, .what = "reading the samples", .rows = r};
    return c;
}

mw_run_cursor *mw_run_windows(mw_store *s, int channel, mw_run_window_order order)
{
    /* [one channel][order]: whole statements, no SQL assembled at run time */
    static const char *const sql[2][2] = {
        {RUN_SAMPLE_COLS " ORDER BY t1_ns, t0_ns",
         RUN_SAMPLE_COLS " ORDER BY segment, seq, channel"},
        {RUN_SAMPLE_COLS " WHERE channel = ?1 ORDER BY t1_ns, t0_ns",
         RUN_SAMPLE_COLS " WHERE channel = ?1 ORDER BY segment, seq, channel"},
    };
    if (mw_store_schema(s) >= 6) return rows_cursor(s, CUR_WINDOWS, channel, order, 1, 0);
    mw_run_cursor *c = cursor_open(s, CUR_WINDOWS, sql[channel >= 0][order == MW_RUN_BY_WINDOW],
                                   "reading the samples");
    if (c && channel >= 0) sqlite3_bind_int(c->st, 1, channel);
    return c;
}

int mw_run_window_next(mw_run_cursor *c, mw_store_sample *out)
{
    int rc = cursor_step(c, CUR_WINDOWS), bad = 0;
    if (rc != 1) return rc;
    if (c->rows) {
        *out = c->row;
        return 1;
    }
    sqlite3_stmt *st = c->st;
    *out = (mw_store_sample){
        .channel = COL_I32(c, 0, &bad),
        .segment = COL_I32(c, 1, &bad),
        .seq = COL_U32(c, 2, &bad),
        .meter_t0_us = (uint64_t)sqlite3_column_int64(st, 3),
        .meter_t1_us = (uint64_t)sqlite3_column_int64(st, 4),
        .t0_ns = sqlite3_column_int64(st, 5),
        .t1_ns = sqlite3_column_int64(st, 6),
        .uncertainty_ns = sqlite3_column_int64(st, 7),
        .power_mw = COL_I32(c, 8, &bad),
        .vrms_mv = COL_I32(c, 9, &bad),
        .irms_ua = COL_I32(c, 10, &bad),
        .pf_milli = COL_I32(c, 11, &bad),
        .meter_energy_mj = sqlite3_column_int64(st, 12),
        .energy_mj = sqlite3_column_int64(st, 13),
        .flags = COL_U32(c, 14, &bad),
    };
    return bad ? -1 : 1;
}

/* ---- phases of phase_blocks (version 3) -------------------------------------------------- */

enum { KEY_START, KEY_RANK, KEY_START_RANK };

typedef struct {
    int64_t id, pid;
    int rank, thread;
    char *host;
    unsigned char *data;
    mw_pc_reader rd;
    mw_pc_event ev; /* the current event (kept by the filter) */
} run_block;

struct run_blocks {
    sqlite3_stmt *bst; /* the blocks, in the order of their first key */
    int peeked;        /* bst has a row not yet opened */
    int done;          /* bst has no more rows (stepping it again would start over) */
    int row;           /* the phases row: 1 current, 0 none left, -1 to be stepped */
    int order, spans;
    run_block **heap;
    size_t nheap, cap;
    run_block *spent; /* handed out its last event: its host lives until the next call */
    char **kind, **name;
    unsigned char *keep;
    int64_t nnames;
};

static void block_free(run_block *k)
{
    if (!k) return;
    free(k->host);
    free(k->data);
    free(k);
}

static void blocks_free(run_blocks *b)
{
    if (!b) return;
    sqlite3_finalize(b->bst);
    for (size_t i = 0; i < b->nheap; i++)
        block_free(b->heap[i]);
    free(b->heap);
    block_free(b->spent);
    for (int64_t i = 0; i < b->nnames; i++) {
        free(b->kind[i]);
        free(b->name[i]);
    }
    free(b->kind);
    free(b->name);
    free(b->keep);
    free(b);
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s)) return 1;
    return 0;
}

/* phase_names, with the filter's verdict per id (ids outside 0 .. count-1 are never used by
 * a merge: an event naming one is an error) */
static int blocks_names(mw_store *s, run_blocks *b, const mw_run_phase_filter *f)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s),
                           "SELECT id, kind, name, (SELECT count(*) FROM phase_names) "
                           "FROM phase_names",
                           -1, &st, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "reading the phase names");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!b->kind) {
            b->nnames = sqlite3_column_int64(st, 3);
            b->kind = mw_xcalloc((size_t)b->nnames, sizeof *b->kind);
            b->name = mw_xcalloc((size_t)b->nnames, sizeof *b->name);
            b->keep = mw_xcalloc((size_t)b->nnames, 1);
        }
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < 0 || id >= b->nnames || b->kind[id]) continue;
        b->kind[id] = mw_xstrdup(text_or(st, 1, ""));
        b->name[id] = mw_xstrdup(text_or(st, 2, ""));
        b->keep[id] = (!f->kinds || in_list(f->kinds, b->kind[id])) &&
                      (!f->not_kinds || !in_list(f->not_kinds, b->kind[id])) &&
                      (!f->name || !strcmp(f->name, b->name[id]));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : mw_store_db_error(s, "reading the phase names");
}

/* The blocks' side of a phase cursor with filter f in order `order`; NULL on error. */
static run_blocks *blocks_open(mw_store *s, const mw_run_phase_filter *f, int order)
{
    /* [rank given][ranked][order]: whole statements, no SQL assembled at run time */
#define RUN_BLOCK_COLS                                                                             \
    "SELECT id, rank, host, pid, thread, start_ns, data FROM phase_blocks WHERE 1"
#define RUN_BLOCK_ORDERS(W)                                                                        \
    {                                                                                              \
        RUN_BLOCK_COLS W " ORDER BY start_ns, id",                                                 \
            RUN_BLOCK_COLS W " ORDER BY rank, start_ns, id",                                       \
            RUN_BLOCK_COLS W " ORDER BY start_ns, rank, thread, id"                                \
    }
    static const char *const sql[2][2][3] = {
        {RUN_BLOCK_ORDERS(""), RUN_BLOCK_ORDERS(" AND rank >= 0")},
        {RUN_BLOCK_ORDERS(" AND rank = ?1"), RUN_BLOCK_ORDERS(" AND rank = ?1 AND rank >= 0")},
    };
    run_blocks *b = mw_xcalloc(1, sizeof *b);
    b->order = order;
    b->spans = f->spans;
    b->row = -1;
    if (sqlite3_prepare_v2(mw_store_sqlite(s),
                           sql[f->rank != MW_RUN_ANY_RANK][f->ranked != 0][order], -1, &b->bst,
                           NULL) != SQLITE_OK) {
        mw_store_db_error(s, "reading the phase blocks");
        blocks_free(b);
        return NULL;
    }
    if (f->rank != MW_RUN_ANY_RANK) sqlite3_bind_int(b->bst, 1, f->rank);
    if (blocks_names(s, b, f)) {
        blocks_free(b);
        return NULL;
    }
    return b;
}

static int key_cmp(int order, int64_t s1, int r1, int t1, int64_t s2, int r2, int t2)
{
    if (order == KEY_RANK && r1 != r2) return r1 < r2 ? -1 : 1;
    if (s1 != s2) return s1 < s2 ? -1 : 1;
    if (order == KEY_START_RANK && r1 != r2) return r1 < r2 ? -1 : 1;
    if (order == KEY_START_RANK && t1 != t2) return t1 < t2 ? -1 : 1;
    return 0;
}

static int block_before(const run_blocks *b, const run_block *x, const run_block *y)
{
    int c =
        key_cmp(b->order, x->ev.start_ns, x->rank, x->thread, y->ev.start_ns, y->rank, y->thread);
    return c ? c < 0 : x->id < y->id;
}

static void heap_down(run_blocks *b, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < b->nheap && block_before(b, b->heap[l], b->heap[m])) m = l;
        if (l + 1 < b->nheap && block_before(b, b->heap[l + 1], b->heap[m])) m = l + 1;
        if (m == i) return;
        run_block *t = b->heap[i];
        b->heap[i] = b->heap[m];
        b->heap[m] = t;
        i = m;
    }
}

static void heap_push(run_blocks *b, run_block *k)
{
    if (b->nheap == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->heap = mw_xrealloc(b->heap, b->cap * sizeof *b->heap);
    }
    size_t i = b->nheap++;
    b->heap[i] = k;
    while (i > 0 && block_before(b, b->heap[i], b->heap[(i - 1) / 2])) {
        run_block *t = b->heap[i];
        b->heap[i] = b->heap[(i - 1) / 2];
        b->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

/* The block's next event the filter keeps: 1, 0 at its end, -1 (damaged, message set). */
static int block_next(mw_store *s, run_blocks *b, run_block *k)
{
    int rc;
    while ((rc = mw_pc_next(&k->rd, &k->ev)) == 1) {
        if (k->ev.name < 0 || k->ev.name >= b->nnames || !b->kind[k->ev.name]) break;
        if (b->keep[k->ev.name] && (!b->spans || k->ev.end_ns > k->ev.start_ns)) return 1;
    }
    if (rc == 0) return 0;
    return mw_store_bad_value(s, "reading the phases: phase block %lld is damaged",
                              (long long)k->id);
}

/* Opens the peeked block row: into the heap when it has an event the filter keeps. */
static int block_open(mw_store *s, run_blocks *b)
{
    sqlite3_stmt *st = b->bst;
    run_block *k = mw_xcalloc(1, sizeof *k);
    k->id = sqlite3_column_int64(st, 0);
    k->rank = sqlite3_column_int(st, 1);
    k->host = mw_xstrdup(text_or(st, 2, ""));
    k->pid = sqlite3_column_int64(st, 3);
    k->thread = sqlite3_column_int(st, 4);
    int len = sqlite3_column_bytes(st, 6);
    const void *blob = sqlite3_column_blob(st, 6);
    k->data = mw_xcalloc((size_t)len + 1, 1);
    if (blob && len > 0) memcpy(k->data, blob, (size_t)len);
    mw_pc_reader_init(&k->rd, k->data, (size_t)len, sqlite3_column_int64(st, 5));
    int rc = block_next(s, b, k);
    if (rc == 1)
        heap_push(b, k);
    else
        block_free(k);
    return rc < 0 ? -1 : 0;
}

/* Opens every block whose first key is no later than the open blocks' earliest event. */
static int blocks_fill(mw_run_cursor *c, run_blocks *b)
{
    for (;;) {
        if (!b->peeked) {
            if (b->done) return 0;
            int rc = sqlite3_step(b->bst);
            if (rc == SQLITE_DONE) b->done = 1;
            if (rc == SQLITE_DONE) return 0;
            if (rc != SQLITE_ROW) return mw_store_db_error(c->s, "reading the phase blocks");
            b->peeked = 1;
        }
        sqlite3_stmt *st = b->bst;
        if (b->nheap) {
            const run_block *top = b->heap[0];
            if (key_cmp(b->order, sqlite3_column_int64(st, 5), sqlite3_column_int(st, 1),
                        sqlite3_column_int(st, 4), top->ev.start_ns, top->rank, top->thread) > 0)
                return 0;
        }
        b->peeked = 0;
        if (block_open(c->s, b)) return -1;
    }
}

static int row_phase(mw_run_cursor *c, mw_store_phase *out);

/* The next phase of a version 3 cursor: 1, 0, -1. */
static int blocks_next(mw_run_cursor *c, mw_store_phase *out)
{
    run_blocks *b = c->b;
    block_free(b->spent);
    b->spent = NULL;
    if (b->row < 0) {
        int rc = sqlite3_step(c->st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) return mw_store_db_error(c->s, c->what);
        b->row = rc == SQLITE_ROW;
    }
    if (blocks_fill(c, b)) return -1;
    const run_block *top = b->nheap ? b->heap[0] : NULL;
    if (b->row == 1 && (!top || key_cmp(b->order, sqlite3_column_int64(c->st, 5),
                                        sqlite3_column_int(c->st, 0), sqlite3_column_int(c->st, 2),
                                        top->ev.start_ns, top->rank, top->thread) <= 0)) {
        b->row = -1;
        return row_phase(c, out);
    }
    if (!top) return 0;
    run_block *k = b->heap[0];
    *out = (mw_store_phase){.rank = k->rank,
                            .host = k->host,
                            .thread = k->thread,
                            .kind = b->kind[k->ev.name],
                            .name = b->name[k->ev.name],
                            .start_ns = k->ev.start_ns,
                            .end_ns = k->ev.end_ns,
                            .bytes = k->ev.bytes,
                            .pid = k->pid,
                            .peer = k->ev.peer};
    int rc = block_next(c->s, b, k);
    if (rc < 0) return -1;
    if (rc == 0) { /* k is spent: out->host stays valid until the next call */
        b->spent = k;
        b->heap[0] = b->heap[--b->nheap];
    }
    heap_down(b, 0);
    return 1;
}

/* ---- phases ------------------------------------------------------------------------------ */

mw_run_phase_filter mw_run_phase_all(void)
{
    return (mw_run_phase_filter){.rank = MW_RUN_ANY_RANK, .order = MW_RUN_BY_START};
}

typedef struct {
    char sql[2048];
    size_t len;
    const char *text[RUN_MAX_BINDS];
    int ntext;
    int overflow;
} phase_sql;

static void sql_add(phase_sql *q, const char *s)
{
    size_t n = strlen(s);
    if (q->len + n + 1 > sizeof q->sql) {
        q->overflow = 1;
        return;
    }
    memcpy(q->sql + q->len, s, n + 1);
    q->len += n;
}

/* " AND kind [NOT] IN (?, ?, ...)" with the kinds bound as text */
static void sql_kinds(phase_sql *q, const char *const *kinds, int negate)
{
    if (!kinds) return;
    sql_add(q, negate ? " AND kind NOT IN (" : " AND kind IN (");
    int first = 1;
    for (const char *const *k = kinds; *k; k++) {
        if (q->ntext == RUN_MAX_BINDS) {
            q->overflow = 1;
            return;
        }
        q->text[q->ntext++] = *k;
        sql_add(q, first ? "?" : ", ?");
        first = 0;
    }
    sql_add(q, first ? "NULL)" : ")");
}

mw_run_cursor *mw_run_phases(mw_store *s, const mw_run_phase_filter *f)
{
    mw_run_phase_filter all = mw_run_phase_all();
    if (!f) f = &all;
    phase_sql q = {.len = 0};
    sql_add(&q, mw_store_schema(s) >= 2
                    ? "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, peer "
                      "FROM phases WHERE 1"
                    : "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes, 0, -1 "
                      "FROM phases WHERE 1");
    sql_kinds(&q, f->kinds, 0);
    sql_kinds(&q, f->not_kinds, 1);
    int rank_bind = 0;
    if (f->name) {
        if (q.ntext == RUN_MAX_BINDS)
            q.overflow = 1;
        else {
            q.text[q.ntext++] = f->name;
            sql_add(&q, " AND name = ?");
        }
    }
    if (f->rank != MW_RUN_ANY_RANK) {
        rank_bind = q.ntext + 1;
        sql_add(&q, " AND rank = ?");
    }
    if (f->ranked) sql_add(&q, " AND rank >= 0");
    if (f->spans) sql_add(&q, " AND end_ns > start_ns");
    sql_add(&q,
            f->order == MW_RUN_BY_RANK ? " ORDER BY rank, start_ns, id" : " ORDER BY start_ns, id");
    if (q.overflow) {
        mw_store_db_error(s, "reading the phases: filter too long");
        return NULL;
    }
    mw_run_cursor *c = cursor_open(s, CUR_PHASES, q.sql, "reading the phases");
    if (!c) return NULL;
    if (mw_store_schema(s) >= 3 &&
        !(c->b = blocks_open(s, f, f->order == MW_RUN_BY_RANK ? KEY_RANK : KEY_START))) {
        mw_run_close(c);
        return NULL;
    }
    for (int i = 0; i < q.ntext; i++)
        sqlite3_bind_text(c->st, i + 1, q.text[i], -1, SQLITE_TRANSIENT);
    if (rank_bind) sqlite3_bind_int(c->st, rank_bind, f->rank);
    return c;
}

int mw_run_phase_next(mw_run_cursor *c, mw_store_phase *out)
{
    if (c && c->kind == CUR_PHASES && c->b) return blocks_next(c, out);
    int rc = cursor_step(c, CUR_PHASES);
    if (rc != 1) return rc;
    return row_phase(c, out);
}

/* the current row of c's phases statement into out: 1, or -1 for a value out of range */
static int row_phase(mw_run_cursor *c, mw_store_phase *out)
{
    sqlite3_stmt *st = c->st;
    int bad = 0;
    *out = (mw_store_phase){
        .rank = COL_I32(c, 0, &bad),
        .host = text_or(st, 1, ""),
        .thread = COL_I32(c, 2, &bad),
        .kind = text_or(st, 3, ""),
        .name = text_or(st, 4, ""),
        .start_ns = sqlite3_column_int64(st, 5),
        .end_ns = sqlite3_column_int64(st, 6),
        .bytes = sqlite3_column_int64(st, 7),
        .pid = sqlite3_column_int64(st, 8),
        .peer = COL_I32(c, 9, &bad),
    };
    return bad ? -1 : 1;
}

/* ---- gaps, meta, counts ------------------------------------------------------------------ */

mw_run_cursor *mw_run_gaps(mw_store *s)
{
    return cursor_open(s, CUR_GAPS,
                       mw_store_schema(s) >= 5
                           ? "SELECT start_ns, end_ns, reason, meter FROM gaps ORDER BY start_ns, id"
                           : "SELECT start_ns, end_ns, reason, NULL FROM gaps ORDER BY start_ns, id",
                       "reading the gaps");
}

int mw_run_gap_next(mw_run_cursor *c, mw_run_gap *out)
{
    int rc = cursor_step(c, CUR_GAPS);
    if (rc != 1) return rc;
    out->start_ns = sqlite3_column_int64(c->st, 0);
    out->end_ns = sqlite3_column_int64(c->st, 1);
    out->reason = text_or(c->st, 2, "");
    int bad = 0;
    out->meter = sqlite3_column_type(c->st, 3) == SQLITE_NULL
                     ? 0
                     : (int)col_in(c, 3, 1, INT32_MAX, &bad);
    return bad ? -1 : 1;
}

mw_run_cursor *mw_run_meta(mw_store *s)
{
    return cursor_open(s, CUR_META, "SELECT key, value FROM meta ORDER BY key", "reading the meta");
}

int mw_run_meta_next(mw_run_cursor *c, const char **key, const char **value)
{
    int rc = cursor_step(c, CUR_META);
    if (rc != 1) return rc;
    *key = text_or(c->st, 0, "");
    *value = text_or(c->st, 1, "");
    return 1;
}

int mw_run_count(mw_store *s, mw_run_counts *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int v = mw_store_schema(s);
    if (sqlite3_prepare_v2(
            mw_store_sqlite(s),
            v >= 6   ? "SELECT (" STORE_SAMPLES_COUNT "), (SELECT count(*) FROM "
                       "gaps), (SELECT count(*) FROM phases) + (SELECT coalesce(sum("
                       "events), 0) FROM phase_blocks), (SELECT count(*) FROM "
                       "channels), (SELECT coalesce(sum(end_ns - start_ns), 0) FROM gaps), "
                       "(SELECT count(*) FROM meters)"
            : v >= 5 ? "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM "
                       "gaps), (SELECT count(*) FROM phases) + (SELECT coalesce(sum("
                       "events), 0) FROM phase_blocks), (SELECT count(*) FROM "
                       "channels), (SELECT coalesce(sum(end_ns - start_ns), 0) FROM gaps), "
                       "(SELECT count(*) FROM meters)"
            : v >= 3 ? "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM "
                       "gaps), (SELECT count(*) FROM phases) + (SELECT coalesce(sum("
                       "events), 0) FROM phase_blocks), (SELECT count(*) FROM "
                       "channels), (SELECT coalesce(sum(end_ns - start_ns), 0) FROM gaps), 1"
                     : "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM "
                       "gaps), (SELECT count(*) FROM phases), (SELECT count(*) FROM "
                       "channels), (SELECT coalesce(sum(end_ns - start_ns), 0) FROM gaps), 1",
            -1, &st, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "counting");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->samples = sqlite3_column_int64(st, 0);
        out->gaps = sqlite3_column_int64(st, 1);
        out->phases = sqlite3_column_int64(st, 2);
        out->channels = sqlite3_column_int64(st, 3);
        out->gap_ns = sqlite3_column_int64(st, 4);
        out->meters = sqlite3_column_int64(st, 5);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : mw_store_db_error(s, "counting");
}

/* ==== one snapshot; mw export's phase order, named windows and null meta values =========== */

int mw_run_snapshot_begin(mw_store *s)
{
    if (sqlite3_exec(mw_store_sqlite(s), "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "beginning a read");
    return 0;
}

int mw_run_snapshot_end(mw_store *s)
{
    if (sqlite3_exec(mw_store_sqlite(s), "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "ending a read");
    return 0;
}

mw_run_cursor *mw_run_phases_by_start_rank(mw_store *s)
{
    mw_run_cursor *c =
        cursor_open(s, CUR_PHASES,
                    mw_store_schema(s) >= 2
                        ? "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, "
                          "peer FROM phases ORDER BY start_ns, rank, thread, id"
                        : "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes, 0, -1 "
                          "FROM phases ORDER BY start_ns, rank, thread, id",
                    "reading the phases");
    mw_run_phase_filter all = mw_run_phase_all();
    if (c && mw_store_schema(s) >= 3 && !(c->b = blocks_open(s, &all, KEY_START_RANK))) {
        mw_run_close(c);
        return NULL;
    }
    return c;
}

/* the columns of mw_run_windows(), in its order, then the name (column 15) */
#define RUN_NAMED_COLUMNS 16

mw_run_cursor *mw_run_named_windows(mw_store *s)
{
    if (mw_store_schema(s) >= 6) return rows_cursor(s, CUR_WINDOWS, -1, MW_RUN_BY_WINDOW, 1, 1);
    return cursor_open(s, CUR_WINDOWS,
                       "SELECT s.channel, s.segment, s.seq, s.meter_t0_us, s.meter_t1_us, s.t0_ns, "
                       "s.t1_ns, s.uncertainty_ns, s.power_mw, s.vrms_mv, s.irms_ua, s.pf_milli, "
                       "s.meter_energy_mj, s.energy_mj, s.flags, "
                       "coalesce(c.name, CAST(s.channel AS TEXT)) "
                       "FROM samples s LEFT JOIN channels c ON c.channel = s.channel "
                       "ORDER BY s.segment, s.seq, s.channel",
                       "reading the samples");
}

int mw_run_named_window_next(mw_run_cursor *c, mw_store_sample *out, const char **name)
{
    if (c && c->rows) {
        if (!mw_run_rows_named(c->rows)) return -1;
        int rc = mw_run_window_next(c, out);
        if (rc == 1) *name = mw_run_rows_name(c->rows, out->channel);
        return rc;
    }
    if (!c || sqlite3_column_count(c->st) != RUN_NAMED_COLUMNS) return -1;
    int rc = mw_run_window_next(c, out);
    if (rc == 1) *name = text_or(c->st, RUN_NAMED_COLUMNS - 1, "");
    return rc;
}

int mw_run_meta_next_nullable(mw_run_cursor *c, const char **key, const char **value)
{
    int rc = mw_run_meta_next(c, key, value);
    if (rc == 1) *value = text_or(c->st, 1, NULL);
    return rc;
}

int mw_run_counter_first(mw_store *s, const char *name, int64_t *value)
{
    mw_run_cursor *c = cursor_open(s, CUR_PHASES,
                                   "SELECT bytes FROM phases WHERE kind = 'counter' AND name = ?1 "
                                   "ORDER BY id LIMIT 1",
                                   "reading a counter");
    if (!c) return -1;
    sqlite3_bind_text(c->st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(c->st), ret = rc == SQLITE_ROW ? 1 : 0;
    if (rc == SQLITE_ROW)
        *value = sqlite3_column_int64(c->st, 0);
    else if (rc != SQLITE_DONE)
        ret = mw_store_db_error(s, "reading a counter");
    mw_run_close(c); /* counters are never in phase_blocks (merge.c keeps them rows) */
    return ret;
}

/* ==== added for the analysis (models/analysis_run.c) ====================================
 * The power-only window cursor and one window's lookup (the snapshot is
 * mw_run_snapshot_begin/end above). */

#define RUN_POWER_COLS "SELECT channel, t0_ns, t1_ns, power_mw FROM samples"

mw_run_cursor *mw_run_powers(mw_store *s, int channel, mw_run_window_order order)
{
    /* [one channel][order]: whole statements, as mw_run_windows */
    static const char *const sql[2][2] = {
        {RUN_POWER_COLS " ORDER BY t1_ns, t0_ns", RUN_POWER_COLS " ORDER BY segment, seq, channel"},
        {RUN_POWER_COLS " WHERE channel = ?1 ORDER BY t1_ns, t0_ns",
         RUN_POWER_COLS " WHERE channel = ?1 ORDER BY segment, seq, channel"},
    };
    if (mw_store_schema(s) >= 6) return rows_cursor(s, CUR_POWERS, channel, order, 0, 0);
    mw_run_cursor *c = cursor_open(s, CUR_POWERS, sql[channel >= 0][order == MW_RUN_BY_WINDOW],
                                   "reading the samples");
    if (c && channel >= 0) sqlite3_bind_int(c->st, 1, channel);
    return c;
}

int mw_run_power_next(mw_run_cursor *c, mw_run_power *out)
{
    int rc = cursor_step(c, CUR_POWERS), bad = 0;
    if (rc != 1) return rc;
    if (c->rows) {
        *out = (mw_run_power){c->row.channel, c->row.t0_ns, c->row.t1_ns, c->row.power_mw};
        return 1;
    }
    out->channel = COL_I32(c, 0, &bad);
    out->t0_ns = sqlite3_column_int64(c->st, 1);
    out->t1_ns = sqlite3_column_int64(c->st, 2);
    out->power_mw = COL_I32(c, 3, &bad);
    return bad ? -1 : 1;
}

int mw_run_window_find(mw_store *s, int channel, int64_t t0_ns, int64_t t1_ns, mw_store_sample *out)
{
    if (mw_store_schema(s) >= 6) return mw_run_rows_find(s, channel, t0_ns, t1_ns, out);
    mw_run_cursor *c = cursor_open(
        s, CUR_WINDOWS, RUN_SAMPLE_COLS " WHERE channel = ?1 AND t1_ns = ?2 AND t0_ns = ?3 LIMIT 1",
        "reading a window");
    if (!c) return -1;
    sqlite3_bind_int(c->st, 1, channel);
    sqlite3_bind_int64(c->st, 2, t1_ns);
    sqlite3_bind_int64(c->st, 3, t0_ns);
    int rc = mw_run_window_next(c, out);
    mw_run_close(c);
    return rc;
}

/* ---- in-band sources (schema version 4; an older run has none) ---------------------------- */

/* 1 when the run has the in-band tables (version 4 makes them with its first source) */
static int has_inband(mw_store *s)
{
    sqlite3_stmt *st;
    if (mw_store_schema(s) < MW_STORE_INBAND_SINCE ||
        sqlite3_prepare_v2(mw_store_sqlite(s), MW_STORE_INBAND_EXISTS, -1, &st, NULL) != SQLITE_OK)
        return 0;
    int yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

static mw_run_cursor *inband_open(mw_store *s, cursor_kind kind, const char *sql, const char *what)
{
    if (!has_inband(s)) sql = "SELECT 1 WHERE 0";
    return cursor_open(s, kind, sql, what);
}

mw_run_cursor *mw_run_inband_channels(mw_store *s)
{
    return inband_open(s, CUR_INBAND_CHANNELS,
                       "SELECT source, name, host, kind, domain, device, range_uj, additive, "
                       "sampled FROM inband_channels ORDER BY source",
                       "reading the in-band sources");
}

int mw_run_inband_channel_next(mw_run_cursor *c, mw_run_inband_channel *out)
{
    int rc = cursor_step(c, CUR_INBAND_CHANNELS), bad = 0;
    if (rc != 1) return rc;
    sqlite3_stmt *st = c->st;
    *out = (mw_run_inband_channel){
        .source = COL_I32(c, 0, &bad),
        .name = text_or(st, 1, ""),
        .host = text_or(st, 2, ""),
        .kind = text_or(st, 3, ""),
        .domain = text_or(st, 4, ""),
        .device = text_or(st, 5, ""),
        .range_uj = (uint64_t)col_in(c, 6, 0, INT64_MAX, &bad),
        .additive = (int)col_in(c, 7, 0, 1, &bad),
        .sampled = (int)col_in(c, 8, 0, 1, &bad),
    };
    return bad ? -1 : 1;
}

mw_run_cursor *mw_run_inband_windows(mw_store *s, int source)
{
    static const char *const sql[2] = {
        "SELECT source, seq, t0_ns, t1_ns, power_mw, energy_uj, counter_uj, flags FROM "
        "inband_samples ORDER BY source, seq",
        "SELECT source, seq, t0_ns, t1_ns, power_mw, energy_uj, counter_uj, flags FROM "
        "inband_samples WHERE source = ?1 ORDER BY source, seq"};
    mw_run_cursor *c =
        inband_open(s, CUR_INBAND_WINDOWS, sql[source >= 0], "reading the in-band windows");
    if (c && source >= 0 && sqlite3_bind_parameter_count(c->st) == 1)
        sqlite3_bind_int(c->st, 1, source);
    return c;
}

int mw_run_inband_window_next(mw_run_cursor *c, mw_inband_window *out)
{
    int rc = cursor_step(c, CUR_INBAND_WINDOWS), bad = 0;
    if (rc != 1) return rc;
    sqlite3_stmt *st = c->st;
    *out = (mw_inband_window){
        .source = COL_I32(c, 0, &bad),
        .seq = COL_U32(c, 1, &bad),
        .t0_ns = sqlite3_column_int64(st, 2),
        .t1_ns = sqlite3_column_int64(st, 3),
        .power_mw = sqlite3_column_int64(st, 4),
        .energy_uj = sqlite3_column_int64(st, 5),
        .counter_uj = sqlite3_column_int64(st, 6),
        .flags = COL_U32(c, 7, &bad),
    };
    return bad ? -1 : 1;
}

mw_run_cursor *mw_run_inband_gaps(mw_store *s)
{
    return inband_open(s, CUR_INBAND_GAPS,
                       "SELECT source, start_ns, end_ns, reason FROM inband_gaps "
                       "ORDER BY source, start_ns, id",
                       "reading the in-band gaps");
}

int mw_run_inband_gap_next(mw_run_cursor *c, int *source, mw_run_gap *out)
{
    int rc = cursor_step(c, CUR_INBAND_GAPS), bad = 0;
    if (rc != 1) return rc;
    *source = COL_I32(c, 0, &bad);
    out->start_ns = sqlite3_column_int64(c->st, 1);
    out->end_ns = sqlite3_column_int64(c->st, 2);
    out->reason = text_or(c->st, 3, "");
    out->meter = 0;
    return bad ? -1 : 1;
}
