/* run_rows — see run_rows.h.
 *
 * Schema 6 keeps a window's channels in one row of windows, which has no index but its
 * rowid (the order of arrival: what makes the recorder's commits cheap). A cursor sorts the
 * rows' keys alone — "SELECT id, keys FROM windows ORDER BY keys": a few integers a row,
 * 14,400 rows an hour per meter, so the sort stays small where sorting whole rows (or the
 * view samples, 16 times as many) would not — and then reads each row by its rowid (in
 * near-arrival order, so the same pages in turn), handing out its slots. Rows whose keys
 * are equal form a group (the windows of several meters at the same times, or a window
 * split over rows): the group's samples are sorted by channel before they go out, so ties
 * come in version 5's order (its index, then its primary key (segment, seq, channel)).
 * Values handed out in 32 bits are checked as run.c checks them: one out of its range is
 * an error naming the column, at the sample that holds it.
 *
 * Schema 7 with clock knots: the keys and the rows carry the final times, each window's
 * meter times mapped through its segment's knots by the SQL functions mw_store_has_knots
 * gives the connection (the view samples' arithmetic, in C), so the by-time order is the
 * final one; the rows' own times where a segment has none. mw_run_rows_find looks for the
 * final times first among the rows whose live stamp is near them (the index). */
#include "run_rows.h"

#include "mw_alloc.h"
#include "store_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_SLOT0 9 /* the row statement's first slot column */

typedef struct {
    mw_store_sample x;
    const char *bad; /* the first column of x out of its range, NULL when none */
    int64_t bad_v, lo, hi;
    size_t ord; /* its place in the group as read, the tie-break of the sort by channel */
} row_item;

/* The most samples one window's group may hold: every slot of 64 hosts x 4 meters, with
 * room to spare. A hostile store whose rows all share one key would otherwise be read whole
 * into memory as one group. */
#define ROWS_GROUP_MAX 65536

struct mw_run_rows {
    mw_store *s;
    sqlite3_stmt *keys, *row;
    const char *what;
    int channel, by_time, full, names;
    int pending; /* keys holds a row of the next group, not read yet */
    int done;
    row_item *it;
    size_t n, pos, cap;
    int *name_ch;
    char **name;
    size_t nnames;
    char numbuf[24];
};

static const char row_sql[] = "SELECT meter, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns, "
                              "uncertainty_ns, channel0" STORE_SLOTS(STORE_SLOT_NAMES)
                              " FROM windows WHERE id = ?1";
/* version 7 with clock knots: the times mapped through them (mw_store_has_knots' SQL
 * functions, the view's arithmetic in C) */
#define ROW_T(x, live) "mw_knot_t(meter, segment, " x ", " live ")"
static const char row7_sql[] = "SELECT meter, segment, seq, meter_t0_us, meter_t1_us, "
                               ROW_T("meter_t0_us", "t0_ns") ", " ROW_T("meter_t1_us", "t1_ns")
                               ", mw_knot_unc(meter, segment, uncertainty_ns), channel0"
                               STORE_SLOTS(STORE_SLOT_NAMES) " FROM windows WHERE id = ?1";
#define KEYS7(where, order)                                                                        \
    "SELECT id, segment, seq, " ROW_T("meter_t0_us", "t0_ns") " AS t0, " ROW_T("meter_t1_us",      \
                                                                            "t1_ns") " AS t1 "     \
    "FROM windows" where " ORDER BY " order
static const char *const keys7_sql[2][2] = {
    {KEYS7("", "segment, seq, channel0"), KEYS7("", "t1, t0, segment, seq, channel0")},
    {KEYS7(" WHERE channel0 BETWEEN ?1 - 15 AND ?1", "segment, seq, channel0"),
     KEYS7(" WHERE channel0 BETWEEN ?1 - 15 AND ?1", "t1, t0, segment, seq, channel0")},
};

/* [one channel][by time] */
static const char *const keys_sql[2][2] = {
    {"SELECT id, segment, seq, t0_ns, t1_ns FROM windows ORDER BY segment, seq, channel0",
     "SELECT id, segment, seq, t0_ns, t1_ns FROM windows ORDER BY t1_ns, t0_ns, segment, seq, "
     "channel0"},
    {"SELECT id, segment, seq, t0_ns, t1_ns FROM windows WHERE channel0 BETWEEN ?1 - 15 AND ?1 "
     "ORDER BY segment, seq, channel0",
     "SELECT id, segment, seq, t0_ns, t1_ns FROM windows WHERE channel0 BETWEEN ?1 - 15 AND ?1 "
     "ORDER BY t1_ns, t0_ns, segment, seq, channel0"},
};

static int load_names(mw_run_rows *r)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(r->s), "SELECT channel, name FROM channels", -1, &st,
                           NULL) != SQLITE_OK)
        return mw_store_db_error(r->s, r->what);
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->nnames == cap) {
            cap = cap ? 2 * cap : 32;
            r->name_ch = mw_xrealloc(r->name_ch, cap * sizeof *r->name_ch);
            r->name = mw_xrealloc(r->name, cap * sizeof *r->name);
        }
        const unsigned char *t = sqlite3_column_text(st, 1);
        r->name_ch[r->nnames] = sqlite3_column_int(st, 0);
        r->name[r->nnames++] = mw_xstrdup(t ? (const char *)t : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : mw_store_db_error(r->s, r->what);
}

mw_run_rows *mw_run_rows_open(mw_store *s, int channel, int by_time, int full, int names,
                              const char *what)
{
    mw_run_rows *r = mw_xcalloc(1, sizeof *r);
    r->s = s;
    r->what = what;
    r->channel = channel;
    r->by_time = by_time;
    r->full = full;
    r->names = names;
    sqlite3 *db = mw_store_sqlite(s);
    int v7 = mw_store_has_knots(s);
    if (v7 < 0) {
        mw_run_rows_close(r);
        return NULL;
    }
    if (sqlite3_prepare_v2(db, (v7 ? keys7_sql : keys_sql)[channel >= 0][by_time != 0], -1,
                           &r->keys, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, v7 ? row7_sql : row_sql, -1, &r->row, NULL) != SQLITE_OK ||
        (names && load_names(r))) {
        mw_store_db_error(s, what);
        mw_run_rows_close(r);
        return NULL;
    }
    if (channel >= 0) sqlite3_bind_int(r->keys, 1, channel);
    return r;
}

void mw_run_rows_close(mw_run_rows *r)
{
    if (!r) return;
    sqlite3_finalize(r->keys);
    sqlite3_finalize(r->row);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->name[i]);
    free(r->name);
    free(r->name_ch);
    free(r->it);
    free(r);
}

int mw_run_rows_named(const mw_run_rows *r)
{
    return r->names;
}

const char *mw_run_rows_name(mw_run_rows *r, int channel)
{
    for (size_t i = 0; i < r->nnames; i++)
        if (r->name_ch[i] == channel) return r->name[i];
    snprintf(r->numbuf, sizeof r->numbuf, "%d", channel);
    return r->numbuf;
}

/* v into [lo, hi], or the item marked with the first column out of it */
static int64_t in_range(row_item *it, const char *col, int64_t v, int64_t lo, int64_t hi)
{
    if (v >= lo && v <= hi) return v;
    if (!it->bad) *it = (row_item){.x = it->x, .bad = col, .bad_v = v, .lo = lo, .hi = hi};
    return 0;
}

/* slot k of the row statement's current row into a new item (0: the slot is empty) */
static int slot_item(mw_run_rows *r, sqlite3_stmt *st, int k, row_item *it)
{
    int c = ROW_SLOT0 + STORE_SLOT_FIELDS * k;
    if (sqlite3_column_type(st, c) == SQLITE_NULL) return 0;
    *it = (row_item){0};
    mw_store_sample *x = &it->x;
    int64_t ch0 = sqlite3_column_int64(st, 8); /* ch0 + k without overflow on a hostile row */
    x->channel = (int)in_range(it, "channel", ch0 > INT32_MAX ? ch0 : ch0 + k, INT32_MIN, INT32_MAX);
    x->power_mw = (int32_t)in_range(it, "power_mw", sqlite3_column_int64(st, c), INT32_MIN, INT32_MAX);
    x->t0_ns = sqlite3_column_int64(st, 5);
    x->t1_ns = sqlite3_column_int64(st, 6);
    if (!r->full) return 1;
    x->segment = (int)in_range(it, "segment", sqlite3_column_int64(st, 1), INT32_MIN, INT32_MAX);
    x->seq = (uint32_t)in_range(it, "seq", sqlite3_column_int64(st, 2), 0, UINT32_MAX);
    x->meter_t0_us = (uint64_t)sqlite3_column_int64(st, 3);
    x->meter_t1_us = (uint64_t)sqlite3_column_int64(st, 4);
    x->uncertainty_ns = sqlite3_column_int64(st, 7);
    x->vrms_mv = (int32_t)in_range(it, "vrms_mv", sqlite3_column_int64(st, c + 1), INT32_MIN, INT32_MAX);
    x->irms_ua = (int32_t)in_range(it, "irms_ua", sqlite3_column_int64(st, c + 2), INT32_MIN, INT32_MAX);
    x->pf_milli = (int32_t)in_range(it, "pf_milli", sqlite3_column_int64(st, c + 3), INT32_MIN, INT32_MAX);
    x->meter_energy_mj = sqlite3_column_int64(st, c + 4);
    x->energy_mj = sqlite3_column_int64(st, c + 5);
    x->flags = (uint32_t)in_range(it, "flags", sqlite3_column_int64(st, c + 6), 0, UINT32_MAX);
    return 1;
}

/* the row `id`'s samples (of r->channel, or all) appended to the group */
static int read_row(mw_run_rows *r, int64_t id)
{
    sqlite3_reset(r->row);
    sqlite3_bind_int64(r->row, 1, id);
    int rc = sqlite3_step(r->row);
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? 0 : mw_store_db_error(r->s, r->what);
    int64_t ch0 = sqlite3_column_int64(r->row, 8);
    for (int k = 0; k < STORE_NSLOTS; k++) {
        if (r->channel >= 0 && (ch0 > INT32_MAX || ch0 + k != r->channel)) continue;
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 64;
            r->it = mw_xrealloc(r->it, r->cap * sizeof *r->it);
        }
        r->n += (size_t)slot_item(r, r->row, k, &r->it[r->n]);
    }
    return 0;
}

/* by channel, then as read (a stable order for a channel given twice) */
static int item_cmp(const void *a, const void *b)
{
    const row_item *x = a, *y = b;
    if (x->x.channel != y->x.channel) return x->x.channel < y->x.channel ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* the next group of rows with equal keys, its samples by channel */
static int refill(mw_run_rows *r)
{
    r->n = r->pos = 0;
    while (!r->n && !r->done) {
        int64_t key[4] = {0};
        int have = 0;
        for (;;) {
            if (!r->pending) {
                int rc = sqlite3_step(r->keys);
                if (rc == SQLITE_DONE) {
                    r->done = 1;
                    break;
                }
                if (rc != SQLITE_ROW) return mw_store_db_error(r->s, r->what);
            }
            int64_t k[4];
            for (int i = 0; i < 4; i++)
                k[i] = sqlite3_column_int64(r->keys, 1 + i);
            /* by window: (segment, seq); by time: (segment, seq, t0, t1) too */
            int nk = r->by_time ? 4 : 2;
            if (have && memcmp(k, key, (size_t)nk * sizeof k[0])) {
                r->pending = 1;
                break;
            }
            memcpy(key, k, sizeof key);
            have = 1;
            r->pending = 0;
            if (read_row(r, sqlite3_column_int64(r->keys, 0))) return -1;
            if (r->n > ROWS_GROUP_MAX)
                return mw_store_bad_value(r->s, "%s: more than %d samples share one window's "
                                                "key (segment %" PRId64 ", seq %" PRId64 ")",
                                          r->what, ROWS_GROUP_MAX, key[0], key[1]);
        }
    }
    for (size_t i = 0; i < r->n; i++)
        r->it[i].ord = i;
    if (r->n > 1) qsort(r->it, r->n, sizeof *r->it, item_cmp); /* r->it is NULL when empty */
    return 0;
}

int mw_run_rows_next(mw_run_rows *r, mw_store_sample *out)
{
    if (!r) return -1;
    if (r->pos == r->n && refill(r)) return -1;
    if (r->pos == r->n) return 0;
    const row_item *it = &r->it[r->pos++];
    if (it->bad)
        return mw_store_bad_value(r->s, "%s: %s = %" PRId64 " is out of its range %" PRId64
                                        "..%" PRId64,
                                  r->what, it->bad, it->bad_v, it->lo, it->hi);
    *out = it->x;
    return 1;
}

static const char find_sql[] = "SELECT id FROM windows WHERE t1_ns = ?2 AND t0_ns = ?3 AND channel0 "
                               "BETWEEN ?1 - 15 AND ?1 ORDER BY segment, seq, channel0";
/* Version 7: the times asked for are mapped ones, the index holds the stamps written while
 * recording. A window's final time is within its clock's error of that stamp, so the rows
 * whose stamp lies within FIND_NEAR_NS of it are looked at first (through the index); only
 * when none of them maps to the times asked for is every row looked at. */
#define FIND_NEAR_NS 60000000000LL
#define FIND7(where)                                                                               \
    "SELECT id FROM windows WHERE channel0 BETWEEN ?1 - 15 AND ?1" where " AND "                    \
    ROW_T("meter_t1_us", "t1_ns") " = ?2 AND " ROW_T("meter_t0_us", "t0_ns") " = ?3 ORDER BY "     \
    "segment, seq, channel0"
static const char *const find7_sql[2] = {FIND7(" AND t1_ns BETWEEN ?2 - ?4 AND ?2 + ?4"),
                                         FIND7(" AND ?4 IS NOT NULL")};

/* the first window of sql (find_sql, find7_sql) with those times: 1, 0 when none, -1 */
static int find_with(mw_store *s, const char *sql, int channel, int64_t t0_ns, int64_t t1_ns,
                     mw_store_sample *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "reading a window");
    sqlite3_bind_int(st, 1, channel);
    sqlite3_bind_int64(st, 2, t1_ns);
    sqlite3_bind_int64(st, 3, t0_ns);
    if (sqlite3_bind_parameter_count(st) >= 4) sqlite3_bind_int64(st, 4, FIND_NEAR_NS);
    mw_run_rows *r = mw_run_rows_open(s, channel, 0, 1, 0, "reading a window");
    int rc = r ? 0 : -1, found = 0;
    while (!rc && !found) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) break;
        if (step != SQLITE_ROW) {
            rc = mw_store_db_error(s, "reading a window");
            break;
        }
        rc = read_row(r, sqlite3_column_int64(st, 0));
        if (!rc && r->n) found = mw_run_rows_next(r, out);
        if (found < 0) rc = -1;
    }
    sqlite3_finalize(st);
    mw_run_rows_close(r);
    return rc ? -1 : found;
}

int mw_run_rows_find(mw_store *s, int channel, int64_t t0_ns, int64_t t1_ns,
                     mw_store_sample *out)
{
    int knots = mw_store_has_knots(s);
    if (knots <= 0) return knots ? -1 : find_with(s, find_sql, channel, t0_ns, t1_ns, out);
    int rc = find_with(s, find7_sql[0], channel, t0_ns, t1_ns, out);
    return rc ? rc : find_with(s, find7_sql[1], channel, t0_ns, t1_ns, out);
}
