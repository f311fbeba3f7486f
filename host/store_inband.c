/* store_inband — writing the in-band tables of a run store (mw_store.h, docs/run-store.md):
 * the sources of a host, their windows and their gaps. Each write joins the store's open
 * transaction (mw_store_write_begin) like every other mw_store_*_add; the first source
 * makes the tables (IF NOT EXISTS, in the same transaction); the statements are
 * prepared per call, the windows' once per batch, 32 rows to a statement (the in-band
 * sampler writes what it read twice a second, from its own connection). */
#include <sqlite3.h>
#include <stdio.h>

#include "mw_store.h"
#include "store_inband.h"
#include "store_internal.h"

/* prepare sql, or -1 with the store's error */
static int prep(mw_store *s, const char *sql, sqlite3_stmt **st, const char *what)
{
    if (mw_store_schema(s) < MW_STORE_INBAND_SINCE) {
        mw_store_db_error(s, what);
        return -1;
    }
    if (mw_store_write_begin(s)) return -1;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, st, NULL) != SQLITE_OK)
        return mw_store_db_error(s, what);
    return 0;
}

static int done(mw_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : mw_store_db_error(s, what);
    sqlite3_finalize(st);
    return rc;
}

int mw_store_inband_channel_add(mw_store *s, const char *host, const mw_inband_info *info,
                                int *source)
{
    static const char sql[] =
        "INSERT INTO inband_channels(name, host, kind, domain, device, range_uj, additive, "
        "sampled) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
    const char *what = "adding an in-band source";
    sqlite3_stmt *st;
    if (mw_store_write_begin(s)) return -1;
    /* the tables, with the first source (IF NOT EXISTS): a literal, in the transaction */
    if (sqlite3_exec(mw_store_sqlite(s), "" MW_STORE_INBAND_SCHEMA, NULL, NULL, NULL) != SQLITE_OK)
        return mw_store_db_error(s, "making the in-band tables");
    if (prep(s, sql, &st, what)) return -1;
    sqlite3_bind_text(st, 1, info->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, host ? host : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, info->kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, info->domain, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, info->device, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (int64_t)(info->range_uj > INT64_MAX ? INT64_MAX : info->range_uj));
    sqlite3_bind_int(st, 7, info->additive);
    sqlite3_bind_int(st, 8, info->sampled);
    if (done(s, st, what)) return -1;
    *source = (int)sqlite3_last_insert_rowid(mw_store_sqlite(s));
    return 0;
}

/* windows per INSERT statement: one statement of many rows costs less per row than as many
 * steps of one (about 15 % of the in-band writer's time at 1,600 windows a second) */
#define WINDOWS_PER_INSERT 32
_Static_assert(WINDOWS_PER_INSERT == 32, "ROWS_31 below holds the other 31 rows");

/* The statements of one and of WINDOWS_PER_INSERT windows: literal SQL (placeholders only),
 * as every statement of the store (tests/integration/test_hardening.sh, source_audit) */
#define WINDOW_INSERT                                                                        \
    "INSERT INTO inband_samples(source, seq, t0_ns, t1_ns, power_mw, energy_uj, counter_uj, " \
    "flags) VALUES (?,?,?,?,?,?,?,?)"
#define ROW_4 ",(?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?)"
#define ROWS_31 ROW_4 ROW_4 ROW_4 ROW_4 ROW_4 ROW_4 ROW_4 ",(?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?),(?,?,?,?,?,?,?,?)"

static int prep_windows(mw_store *s, int rows, sqlite3_stmt **st)
{
    return prep(s, rows == 1 ? WINDOW_INSERT : WINDOW_INSERT ROWS_31, st,
                "adding an in-band window");
}

static void bind_window(sqlite3_stmt *st, int row, const mw_inband_window *w)
{
    int c = row * 8;
    sqlite3_bind_int(st, c + 1, w->source);
    sqlite3_bind_int64(st, c + 2, w->seq);
    sqlite3_bind_int64(st, c + 3, w->t0_ns);
    sqlite3_bind_int64(st, c + 4, w->t1_ns);
    sqlite3_bind_int64(st, c + 5, w->power_mw);
    sqlite3_bind_int64(st, c + 6, w->energy_uj);
    sqlite3_bind_int64(st, c + 7, w->counter_uj);
    sqlite3_bind_int64(st, c + 8, w->flags);
}

int mw_store_inband_windows_add(mw_store *s, const mw_inband_window *w, size_t n)
{
    sqlite3_stmt *many = NULL, *one = NULL;
    int rc = 0;
    size_t i = 0;
    if (!n) return 0;
    if (n >= WINDOWS_PER_INSERT && prep_windows(s, WINDOWS_PER_INSERT, &many)) return -1;
    for (; i + WINDOWS_PER_INSERT <= n && !rc; i += WINDOWS_PER_INSERT) {
        for (int r = 0; r < WINDOWS_PER_INSERT; r++)
            bind_window(many, r, &w[i + (size_t)r]);
        rc = sqlite3_step(many) == SQLITE_DONE ? 0 : mw_store_db_error(s, "adding an in-band window");
        sqlite3_reset(many);
    }
    sqlite3_finalize(many);
    if (!rc && i < n && prep_windows(s, 1, &one)) return -1;
    for (; i < n && !rc; i++) {
        bind_window(one, 0, &w[i]);
        rc = sqlite3_step(one) == SQLITE_DONE ? 0 : mw_store_db_error(s, "adding an in-band window");
        sqlite3_reset(one);
    }
    sqlite3_finalize(one);
    return rc;
}

int mw_store_inband_gap_add(mw_store *s, int source, int64_t start_ns, int64_t end_ns,
                            const char *reason)
{
    static const char sql[] =
        "INSERT INTO inband_gaps(source, start_ns, end_ns, reason) VALUES (?1, ?2, ?3, ?4)";
    const char *what = "adding an in-band gap";
    sqlite3_stmt *st;
    if (prep(s, sql, &st, what)) return -1;
    sqlite3_bind_int(st, 1, source);
    sqlite3_bind_int64(st, 2, start_ns);
    sqlite3_bind_int64(st, 3, end_ns < start_ns ? start_ns : end_ns);
    sqlite3_bind_text(st, 4, reason ? reason : "", -1, SQLITE_STATIC);
    return done(s, st, what);
}
