/* Schema version 6 (docs/run-store.md): a window's channels share one row of table windows,
 * and the readers give back one sample per channel and window, as version 5's table did.
 * - Packing: two meters (channels 1..15 and 16..30) x 4 windows whose keys are equal
 *   across the meters (the ties of the time order), added channel by channel, make one row
 *   per meter and window (8); channels added in falling order, or a window that changes
 *   times midway, start new rows; the count of samples is unchanged (the view samples).
 * - Orders: mw_run_windows and mw_run_powers, every channel and one, both orders, come back
 *   in the order of a plain sort of the samples written (qsort here, on version 5's keys:
 *   t1_ns, t0_ns, then segment, seq, channel; or segment, seq, channel), every column
 *   intact, absent channels never invented; mw_run_window_find finds each.
 * - Read-your-writes: samples added and not committed are seen by a read through the same
 *   store (the row being filled is written first); a reader in another connection sees them
 *   once committed.
 * - Version 5: the same samples in version 5's table samples (its primary key and indexes,
 *   made by SQL from the view) read back in the same orders through version 5's path: the
 *   orders of the two versions agree, ties included. */
#include "../unit.h"

#include <ftw.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_run.h"
#include "mw_store.h"
#include "../../../host/store_internal.h"

static char tmpdir[64], dir[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

#define NMAX 200
static mw_store_sample written[NMAX];
static int nwritten;

static void add(mw_store *s, int channel, int meter_ch_base, uint32_t seq, int64_t t0)
{
    mw_store_sample x = {
        .channel = channel,
        .segment = channel > 15 ? 1 : 0, /* segments are per meter */
        .seq = seq,
        .meter_t0_us = 250000u * seq + (unsigned)meter_ch_base,
        .meter_t1_us = 250000u * (seq + 1) + (unsigned)meter_ch_base,
        .t0_ns = t0,
        .t1_ns = t0 + 250000000,
        .uncertainty_ns = 1000 + seq,
        .power_mw = 1000 * channel + (int32_t)seq,
        .vrms_mv = 230000 + channel,
        .irms_ua = -channel,
        .pf_milli = channel % 2 ? 999 : -5,
        .meter_energy_mj = 100000LL * channel + seq,
        .energy_mj = (int64_t)1 << 40 | (int64_t)channel,
        .flags = seq == 2 && channel == 3 ? 0x80000001u : 0,
    };
    assert_true(nwritten < NMAX);
    written[nwritten++] = x;
    if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
}

static int64_t q1(mw_store *s, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mw_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(mw_store_sqlite(s)));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int cmp3(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

static int by_window(const void *pa, const void *pb)
{
    const mw_store_sample *a = pa, *b = pb;
    int c = cmp3(a->segment, b->segment);
    if (!c) c = cmp3(a->seq, b->seq);
    return c ? c : cmp3(a->channel, b->channel);
}

static int by_time(const void *pa, const void *pb)
{
    const mw_store_sample *a = pa, *b = pb;
    int c = cmp3(a->t1_ns, b->t1_ns);
    if (!c) c = cmp3(a->t0_ns, b->t0_ns);
    return c ? c : by_window(pa, pb);
}

static void same(const mw_store_sample *a, const mw_store_sample *b)
{
    assert_int_equal(a->channel, b->channel);
    assert_int_equal(a->segment, b->segment);
    assert_int_equal(a->seq, b->seq);
    assert_true(a->meter_t0_us == b->meter_t0_us && a->meter_t1_us == b->meter_t1_us);
    assert_true(a->t0_ns == b->t0_ns && a->t1_ns == b->t1_ns);
    assert_true(a->uncertainty_ns == b->uncertainty_ns);
    assert_int_equal(a->power_mw, b->power_mw);
    assert_int_equal(a->vrms_mv, b->vrms_mv);
    assert_int_equal(a->irms_ua, b->irms_ua);
    assert_int_equal(a->pf_milli, b->pf_milli);
    assert_true(a->meter_energy_mj == b->meter_energy_mj && a->energy_mj == b->energy_mj);
    assert_int_equal(a->flags, b->flags);
}

/* the cursor's samples against the written ones of `channel` (< 0: all), sorted by cmp */
static void check_order(mw_store *s, int channel, mw_run_window_order order)
{
    mw_store_sample want[NMAX], got;
    int n = 0;
    for (int i = 0; i < nwritten; i++)
        if (channel < 0 || written[i].channel == channel) want[n++] = written[i];
    qsort(want, (size_t)n, sizeof want[0], order == MW_RUN_BY_TIME ? by_time : by_window);
    mw_run_cursor *c = mw_run_windows(s, channel, order);
    assert_non_null(c);
    for (int i = 0; i < n; i++) {
        assert_int_equal(mw_run_window_next(c, &got), 1);
        same(&got, &want[i]);
    }
    assert_int_equal(mw_run_window_next(c, &got), 0);
    mw_run_close(c);
    mw_run_power p;
    c = mw_run_powers(s, channel, order);
    for (int i = 0; i < n; i++) {
        assert_int_equal(mw_run_power_next(c, &p), 1);
        assert_int_equal(p.channel, want[i].channel);
        assert_true(p.t0_ns == want[i].t0_ns && p.t1_ns == want[i].t1_ns);
        assert_int_equal(p.power_mw, want[i].power_mw);
    }
    assert_int_equal(mw_run_power_next(c, &p), 0);
    mw_run_close(c);
}

static void rows_and_orders(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-windows-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char err[256];
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_meter_add(s, 1, "sim-1", NULL, NULL, 0, 0), 0);
    assert_int_equal(mw_store_meter_add(s, 2, "sim-2", NULL, NULL, 0, 0), 0);
    for (int c = 1; c <= 30; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", c);
        assert_int_equal(
            mw_store_channel_add_meter(s, c, name, NULL, NULL, c > 15 ? 2 : 1, (c - 1) % 15 + 1),
            0);
    }
    nwritten = 0;
    /* windows 0..3 of both meters at the same host times (ties), added meter by meter */
    for (uint32_t q = 0; q < 4; q++)
        for (int m = 0; m < 2; m++)
            for (int k = 1; k <= 15; k++)
                add(s, 15 * m + k, 0, q, 1700000000000000000LL + 250000000LL * q);
    /* read through the writer before any commit: the row being filled is there too */
    assert_int_equal(q1(s, "SELECT count(*) FROM samples"), 120);
    assert_int_equal(q1(s, "SELECT count(*) FROM windows"), 8);
    assert_int_equal(q1(s, "SELECT count(*) FROM windows WHERE channel0 IN (1, 16)"), 8);
    /* window 4 of meter 1, channels 3, 2, 1: falling, one row each; window 5, channels 1..3
     * of which 3 has other times (a row of its own) */
    for (int c = 3; c >= 1; c--)
        add(s, c, 0, 4, 1700000001000000000LL);
    add(s, 1, 0, 5, 1700000001250000000LL);
    add(s, 2, 0, 5, 1700000001250000000LL);
    add(s, 3, 0, 5, 1700000001249999999LL); /* ends earlier than 1 and 2 */
    assert_int_equal(mw_store_commit(s), 0);
    assert_int_equal(q1(s, "SELECT count(*) FROM windows"), 8 + 3 + 2);
    /* every column and the absent slots: channel 16..30's rows have no slot 16 */
    assert_int_equal(q1(s, "SELECT count(*) FROM windows WHERE p16 IS NOT NULL"), 0);
    mw_store_close(s);

    s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(q1(s, "SELECT count(*) FROM samples"), nwritten);
    mw_run_counts ct;
    assert_int_equal(mw_run_count(s, &ct), 0);
    assert_int_equal(ct.samples, nwritten);
    for (int o = 0; o < 2; o++) {
        mw_run_window_order order = o ? MW_RUN_BY_WINDOW : MW_RUN_BY_TIME;
        check_order(s, -1, order);
        for (int c = 1; c <= 31; c++) /* 31: none */
            check_order(s, c, order);
    }
    for (int i = 0; i < nwritten; i++) {
        mw_store_sample got;
        assert_int_equal(mw_run_window_find(s, written[i].channel, written[i].t0_ns,
                                            written[i].t1_ns, &got),
                         1);
        same(&got, &written[i]);
    }
    int64_t t0;
    assert_int_equal(mw_store_start_ns(s, &t0), 0);
    assert_true(t0 == 1700000000000000000LL);
    mw_store_close(s);

    /* the same run as version 5 wrote it: its table, key and indexes, user_version 5 */
    char db[300];
    snprintf(db, sizeof db, "%s/trace.db", dir);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h,
                     "CREATE TABLE s5 AS SELECT * FROM samples; DROP VIEW samples; "
                     "DROP INDEX IF EXISTS windows_time; DROP TABLE windows; "
                     "CREATE TABLE samples (channel INTEGER NOT NULL, segment INTEGER NOT NULL, "
                     "seq INTEGER NOT NULL, meter_t0_us INTEGER NOT NULL, meter_t1_us INTEGER "
                     "NOT NULL, t0_ns INTEGER NOT NULL, t1_ns INTEGER NOT NULL, uncertainty_ns "
                     "INTEGER NOT NULL, power_mw INTEGER NOT NULL, vrms_mv INTEGER NOT NULL, "
                     "irms_ua INTEGER NOT NULL, pf_milli INTEGER NOT NULL, meter_energy_mj "
                     "INTEGER NOT NULL, energy_mj INTEGER NOT NULL, flags INTEGER NOT NULL, "
                     "PRIMARY KEY (segment, seq, channel)) WITHOUT ROWID; "
                     "CREATE INDEX samples_channel_time ON samples(channel, t1_ns); "
                     "CREATE INDEX samples_time ON samples(t1_ns); "
                     "INSERT INTO samples SELECT * FROM s5 ORDER BY random(); DROP TABLE s5; "
                     "UPDATE meta SET value = '5' WHERE key = 'schema_version'; "
                     "PRAGMA user_version = 5",
                     NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s", msg);
    sqlite3_close(h);
    s = mw_store_open(dir, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(mw_run_count(s, &ct), 0);
    assert_int_equal(ct.samples, nwritten);
    for (int o = 0; o < 2; o++) {
        mw_run_window_order order = o ? MW_RUN_BY_WINDOW : MW_RUN_BY_TIME;
        check_order(s, -1, order);
        for (int c = 1; c <= 31; c++)
            check_order(s, c, order);
    }
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_and_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
