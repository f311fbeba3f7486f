/* run — the read API of a run store (mw_run.h). A cursor is one prepared statement over one
 * table, stepped by its typed next function; nothing is held beyond the current row, so
 * readers stream. The phase filter becomes a WHERE clause whose every value is a bound
 * parameter (kinds and names never enter the SQL text). Schema version 1 runs have no
 * phases.pid nor phases.peer: they read as 0 and -1, the columns' defaults in version 2. A run
 * without the in-band tables (versions 1 and 2, or 3 without in-band sources) has no rows
 * in them. */
#include "mw_run.h"

#include "mw_alloc.h"
#include "store_inband.h"
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MAX_BINDS 64

typedef enum {
    CUR_CHANNELS,
    CUR_WINDOWS,
    CUR_PHASES,
    CUR_GAPS,
    CUR_META,
    CUR_POWERS,
    CUR_INBAND_CHANNELS,
    CUR_INBAND_WINDOWS,
    CUR_INBAND_GAPS
} cursor_kind;

struct mw_run_cursor {
    mw_store *s;
    sqlite3_stmt *st;
    cursor_kind kind;
    const char *what; /* for messages: "reading the phases" */
};

static mw_run_cursor *cursor_open(mw_store *s, cursor_kind kind, const char *sql, const char *what)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK) {
        mw_store_db_error(s, what);
        return NULL;
    }
    mw_run_cursor *c = mw_xcalloc(1, sizeof *c);
    *c = (mw_run_cursor){s, st, kind, what};
    return c;
}

/* 1 with a row, 0 at the end, -1 on error (message in the store) */
static int cursor_step(mw_run_cursor *c, cursor_kind kind)
{
    if (!c || c->kind != kind) return -1;
    int rc = sqlite3_step(c->st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return mw_store_db_error(c->s, c->what);
}

static const char *text_or(sqlite3_stmt *st, int col, const char *dflt)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : dflt;
}

void mw_run_close(mw_run_cursor *c)
{
    if (!c) return;
    sqlite3_finalize(c->st);
    free(c);
}

/* ---- channels ---------------------------------------------------------------------------- */

mw_run_cursor *mw_run_channels(mw_store *s)
{
    return cursor_open(s, CUR_CHANNELS,
                       "SELECT channel, name, host, pin FROM channels ORDER BY channel",
                       "reading the channels");
}

int mw_run_channel_next(mw_run_cursor *c, mw_run_channel *out)
{
    int rc = cursor_step(c, CUR_CHANNELS);
    if (rc != 1) return rc;
    out->channel = sqlite3_column_int(c->st, 0);
    out->name = text_or(c->st, 1, "");
    out->host = text_or(c->st, 2, NULL);
    out->pin = text_or(c->st, 3, NULL);
    return 1;
}

/* ---- windows ----------------------------------------------------------------------------- */

#define RUN_SAMPLE_COLS                                                                            \
    "SELECT channel, segment, seq, meter_t0_us, meter_t1_us, t0_ns, t1_ns, uncertainty_ns, "       \
    "power_mw, vrms_mv, irms_ua, pf_milli, meter_energy_mj, energy_mj, flags FROM samples"

mw_run_cursor *mw_run_windows(mw_store *s, int channel, mw_run_window_order order)
{
    /* [one channel][order]: whole statements, no SQL assembled at run time */
    static const char *const sql[2][2] = {
        {RUN_SAMPLE_COLS " ORDER BY t1_ns, t0_ns",
         RUN_SAMPLE_COLS " ORDER BY segment, seq, channel"},
        {RUN_SAMPLE_COLS " WHERE channel = ?1 ORDER BY t1_ns, t0_ns",
         RUN_SAMPLE_COLS " WHERE channel = ?1 ORDER BY segment, seq, channel"},
    };
    mw_run_cursor *c = cursor_open(s, CUR_WINDOWS, sql[channel >= 0][order == MW_RUN_BY_WINDOW],
                                   "reading the samples");
    if (c && channel >= 0) sqlite3_bind_int(c->st, 1, channel);
    return c;
}

int mw_run_window_next(mw_run_cursor *c, mw_store_sample *out)
{
    int rc = cursor_step(c, CUR_WINDOWS);
    if (rc != 1) return rc;
    sqlite3_stmt *st = c->st;
    *out = (mw_store_sample){
        .channel = sqlite3_column_int(st, 0),
        .segment = sqlite3_column_int(st, 1),
        .seq = (uint32_t)sqlite3_column_int64(st, 2),
        .meter_t0_us = (uint64_t)sqlite3_column_int64(st, 3),
        .meter_t1_us = (uint64_t)sqlite3_column_int64(st, 4),
        .t0_ns = sqlite3_column_int64(st, 5),
        .t1_ns = sqlite3_column_int64(st, 6),
        .uncertainty_ns = sqlite3_column_int64(st, 7),
        .power_mw = sqlite3_column_int(st, 8),
        .vrms_mv = sqlite3_column_int(st, 9),
        .irms_ua = sqlite3_column_int(st, 10),
        .pf_milli = sqlite3_column_int(st, 11),
        .meter_energy_mj = sqlite3_column_int64(st, 12),
        .energy_mj = sqlite3_column_int64(st, 13),
        .flags = (uint32_t)sqlite3_column_int64(st, 14),
    };
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
    for (int i = 0; i < q.ntext; i++)
        sqlite3_bind_text(c->st, i + 1, q.text[i], -1, SQLITE_TRANSIENT);
    if (rank_bind) sqlite3_bind_int(c->st, rank_bind, f->rank);
    return c;
}

int mw_run_phase_next(mw_run_cursor *c, mw_store_phase *out)
{
    int rc = cursor_step(c, CUR_PHASES);
    if (rc != 1) return rc;
    sqlite3_stmt *st = c->st;
    *out = (mw_store_phase){
        .rank = sqlite3_column_int(st, 0),
        .host = text_or(st, 1, ""),
        .thread = sqlite3_column_int(st, 2),
        .kind = text_or(st, 3, ""),
        .name = text_or(st, 4, ""),
        .start_ns = sqlite3_column_int64(st, 5),
        .end_ns = sqlite3_column_int64(st, 6),
        .bytes = sqlite3_column_int64(st, 7),
        .pid = sqlite3_column_int64(st, 8),
        .peer = sqlite3_column_int(st, 9),
    };
    return 1;
}

/* ---- gaps, meta, counts ------------------------------------------------------------------ */

mw_run_cursor *mw_run_gaps(mw_store *s)
{
    return cursor_open(s, CUR_GAPS,
                       "SELECT start_ns, end_ns, reason FROM gaps ORDER BY start_ns, id",
                       "reading the gaps");
}

int mw_run_gap_next(mw_run_cursor *c, mw_run_gap *out)
{
    int rc = cursor_step(c, CUR_GAPS);
    if (rc != 1) return rc;
    out->start_ns = sqlite3_column_int64(c->st, 0);
    out->end_ns = sqlite3_column_int64(c->st, 1);
    out->reason = text_or(c->st, 2, "");
    return 1;
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
    if (sqlite3_prepare_v2(mw_store_sqlite(s),
                           "SELECT (SELECT count(*) FROM samples), (SELECT count(*) FROM gaps), "
                           "(SELECT count(*) FROM phases), (SELECT count(*) FROM channels), "
                           "(SELECT coalesce(sum(end_ns - start_ns), 0) FROM gaps)",
                           -1, &st, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "counting");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->samples = sqlite3_column_int64(st, 0);
        out->gaps = sqlite3_column_int64(st, 1);
        out->phases = sqlite3_column_int64(st, 2);
        out->channels = sqlite3_column_int64(st, 3);
        out->gap_ns = sqlite3_column_int64(st, 4);
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
    return cursor_open(
        s, CUR_PHASES,
        mw_store_schema(s) >= 2
            ? "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes, pid, "
              "peer FROM phases ORDER BY start_ns, rank, thread, id"
            : "SELECT rank, host, thread, kind, name, start_ns, end_ns, bytes, 0, -1 "
              "FROM phases ORDER BY start_ns, rank, thread, id",
        "reading the phases");
}

/* the columns of mw_run_windows(), in its order, then the name (column 15) */
#define RUN_NAMED_COLUMNS 16

mw_run_cursor *mw_run_named_windows(mw_store *s)
{
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
    mw_run_close(c);
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
    mw_run_cursor *c = cursor_open(s, CUR_POWERS, sql[channel >= 0][order == MW_RUN_BY_WINDOW],
                                   "reading the samples");
    if (c && channel >= 0) sqlite3_bind_int(c->st, 1, channel);
    return c;
}

int mw_run_power_next(mw_run_cursor *c, mw_run_power *out)
{
    int rc = cursor_step(c, CUR_POWERS);
    if (rc != 1) return rc;
    out->channel = sqlite3_column_int(c->st, 0);
    out->t0_ns = sqlite3_column_int64(c->st, 1);
    out->t1_ns = sqlite3_column_int64(c->st, 2);
    out->power_mw = sqlite3_column_int(c->st, 3);
    return 1;
}

int mw_run_window_find(mw_store *s, int channel, int64_t t0_ns, int64_t t1_ns, mw_store_sample *out)
{
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

/* ---- in-band sources (schema version 3; an older run has none) ---------------------------- */

/* 1 when the run has the in-band tables (version 3 makes them with its first source) */
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
    int rc = cursor_step(c, CUR_INBAND_CHANNELS);
    if (rc != 1) return rc;
    sqlite3_stmt *st = c->st;
    *out = (mw_run_inband_channel){
        .source = sqlite3_column_int(st, 0),
        .name = text_or(st, 1, ""),
        .host = text_or(st, 2, ""),
        .kind = text_or(st, 3, ""),
        .domain = text_or(st, 4, ""),
        .device = text_or(st, 5, ""),
        .range_uj = (uint64_t)sqlite3_column_int64(st, 6),
        .additive = sqlite3_column_int(st, 7),
        .sampled = sqlite3_column_int(st, 8),
    };
    return 1;
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
    int rc = cursor_step(c, CUR_INBAND_WINDOWS);
    if (rc != 1) return rc;
    sqlite3_stmt *st = c->st;
    *out = (mw_inband_window){
        .source = sqlite3_column_int(st, 0),
        .seq = (uint32_t)sqlite3_column_int64(st, 1),
        .t0_ns = sqlite3_column_int64(st, 2),
        .t1_ns = sqlite3_column_int64(st, 3),
        .power_mw = sqlite3_column_int64(st, 4),
        .energy_uj = sqlite3_column_int64(st, 5),
        .counter_uj = sqlite3_column_int64(st, 6),
        .flags = (uint32_t)sqlite3_column_int64(st, 7),
    };
    return 1;
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
    int rc = cursor_step(c, CUR_INBAND_GAPS);
    if (rc != 1) return rc;
    *source = sqlite3_column_int(c->st, 0);
    out->start_ns = sqlite3_column_int64(c->st, 1);
    out->end_ns = sqlite3_column_int64(c->st, 2);
    out->reason = text_or(c->st, 3, "");
    return 1;
}
