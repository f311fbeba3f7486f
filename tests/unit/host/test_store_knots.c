/* Schema 7's clock knots (mw_clock_knots, mw_meter_segment_knots, mw_store_knots_add, and
 * the readers that map meter times through table clock_knots instead of reading times the
 * end of a run rewrote).
 *
 * A meter is fed 25 minutes of window lines (4 Hz, 2 channels) whose arrivals follow a
 * clock 40 ppm fast plus a slow wander and 0.2-8 ms of random delivery delay, then a reset
 * and 3 more minutes: a first segment long enough for 11 knots of the final fit, a second
 * of one. Every window goes into a store with its live stamps, as the recorder writes them;
 * at the end each segment's knots go in. The truth to compare with is the code the store
 * replaces: mw_meter_map_segment (the final fit itself), with which schema 6's recorder
 * rewrote the rows at the end. Checked:
 *  - every window's t0/t1 from the read API are within 1 ns of mw_meter_map_segment, and
 *    its uncertainty is the segment's; and the mapping did something (live stamps differ
 *    from the final ones by more than 10 us somewhere);
 *  - the view samples (what users' SQL reads) gives exactly the read API's times;
 *  - mw_clock_knots_map (C) and the store's SQL agree to the ns on meter times around and
 *    beyond the knots, before the first and after the last;
 *  - the by-time order is by the mapped t1; a window is found by its mapped times, also
 *    while a cursor is open;
 *  - a store without knots (a run still recorded, or cut short) reads its live stamps;
 *  - a version 6 store is read by its rows' times, whatever else it holds;
 *  - a hostile file's knots (extreme values) are read without overflow or crash. */
#include "../unit.h"

#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc16.h"
#include "frame.h"
#include "mw_meter.h"
#include "mw_run.h"
#include "mw_store.h"

#define PERIOD_US 250016
#define SEG0_WINDOWS 6000 /* 25 min */
#define SEG1_WINDOWS 720  /* 3 min */
#define MAXK 64

static char tmpdir[64], run[96];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-knots-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(run, sizeof run, "%s/run", tmpdir);
    return 0;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static uint64_t lcg = 12345;
static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

/* window seq of a segment whose meter time began at host time base_ns */
static void feed_window(mw_meter *m, uint32_t seq, int64_t base_ns)
{
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.seq = seq;
    f.t0_us = (uint64_t)seq * PERIOD_US;
    f.t1_us = f.t0_us + PERIOD_US;
    f.flags = seq == 0 ? MW_FLAG_FIRST : 0;
    f.nsets = 401;
    f.freq_mhz = 50000;
    f.vrms_mv = 230000;
    f.nchan = 2;
    for (int k = 0; k < 2; k++) {
        f.p_mw[k] = 100000 * (k + 1);
        f.irms_ua[k] = 500000;
        f.pf_milli[k] = 950;
        f.e_mj[k] = (int64_t)seq * 25 * (k + 1);
    }
    double x_s = (double)f.t1_us * 1e-6;
    /* 40 ppm fast, wandering +-0.3 ms over the run, delivered 0.2-8 ms late */
    double host_ns = (double)f.t1_us * 1000.0 * (1.0 - 40e-6) + 3e5 * sin(x_s / 300.0) +
                     2e5 + 7.8e6 * uniform() * uniform();
    char buf[1200];
    size_t n = mw_frame_encode(&f, buf, sizeof buf);
    mw_meter_feed(m, buf, n, base_ns + (int64_t)host_ns + 50000000);
}

static void feed_body(mw_meter *m, const char *body, int64_t at_ns)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s*%04X\r\n", body, mw_crc16(body, strlen(body)));
    mw_meter_feed(m, buf, (size_t)n, at_ns);
}

/* every queued window into the store with its live stamps, as the recorder does */
static int drain(mw_meter *m, mw_store *st)
{
    mw_meter_event ev;
    int n = 0;
    while (mw_meter_queued(m, &ev)) {
        if (ev.type != MW_METER_WINDOW) continue;
        for (int k = 0; k < 2; k++) {
            mw_store_sample x = {.channel = k + 1,
                                 .segment = ev.segment,
                                 .seq = ev.w.seq,
                                 .meter_t0_us = ev.w.t0_us,
                                 .meter_t1_us = ev.w.t1_us,
                                 .t0_ns = ev.t0_ns,
                                 .t1_ns = ev.t1_ns,
                                 .uncertainty_ns = ev.uncertainty_ns,
                                 .power_mw = 1000 * (k + 1)};
            assert_int_equal(mw_store_sample_add(st, &x), 0);
        }
        n++;
    }
    return n;
}

/* the recorded store (knots kept when keep), the meter with its final fit left in *mp */
static mw_store *record(mw_meter **mp, int keep, int64_t unc[2], mw_clock_knot k[2][MAXK],
                        int nk[2])
{
    char err[512];
    mw_store *st = mw_store_create(run, 0, err, sizeof err);
    if (!st) fail_msg("%s", err);
    assert_int_equal(mw_store_channel_add(st, 1, "a", NULL, "A1"), 0);
    assert_int_equal(mw_store_channel_add(st, 2, "b", NULL, "A2"), 0);
    mw_meter *m = mw_meter_new();
    int64_t t0 = 1000000000000LL, t1 = t0 + (int64_t)SEG0_WINDOWS * PERIOD_US * 1000 + 5000000000LL;
    int windows = 0;
    for (uint32_t i = 0; i < SEG0_WINDOWS; i++) {
        feed_window(m, i, t0);
        if (i % 64 == 63) windows += drain(m, st);
    }
    feed_body(m, "B,8,1", t1 - 1000000000LL);
    for (uint32_t i = 0; i < SEG1_WINDOWS; i++) {
        feed_window(m, i, t1);
        if (i % 64 == 63) windows += drain(m, st);
    }
    mw_meter_finish(m);
    windows += drain(m, st);
    assert_int_equal(windows, SEG0_WINDOWS + SEG1_WINDOWS);
    for (int s = 0; s < 2; s++) {
        int64_t t;
        assert_int_equal(mw_meter_map_segment(m, s, 0, &t, &unc[s]), 0);
        nk[s] = mw_meter_segment_knots(m, s, k[s], MAXK);
        assert_true(nk[s] >= 2 && nk[s] <= MAXK);
        if (keep) assert_int_equal(mw_store_knots_add(st, 0, s, k[s], nk[s], unc[s]), 0);
    }
    /* 25 min: knots every 150 s from 0 to 1350 s and one at the end (600 s fits), a lead;
     * 3 min: one fit, one knot and the lead */
    assert_int_equal(nk[0], 12);
    assert_int_equal(nk[1], 2);
    assert_int_equal(mw_store_commit(st), 0);
    *mp = m;
    return st;
}

static int64_t absdiff(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

static void readers_map_through_the_knots(void **state)
{
    mw_meter *m;
    int64_t unc[2];
    mw_clock_knot k[2][MAXK];
    int nk[2];
    mw_store *w = record(&m, 1, unc, k, nk);
    char err[512];
    mw_store *r = mw_store_open(run, err, sizeof err);
    if (!r) fail_msg("%s", err);

    /* the read API against the final fit (mw_meter_map_segment) */
    mw_run_cursor *c = mw_run_windows(r, -1, MW_RUN_BY_WINDOW);
    assert_non_null(c);
    mw_store_sample x;
    int n = 0, rc;
    int64_t worst = 0, moved = 0;
    static int64_t api[2 * (SEG0_WINDOWS + SEG1_WINDOWS)][3];
    while ((rc = mw_run_window_next(c, &x)) == 1) {
        int64_t e0, e1;
        assert_int_equal(mw_meter_map_segment(m, x.segment, x.meter_t0_us, &e0, NULL), 0);
        assert_int_equal(mw_meter_map_segment(m, x.segment, x.meter_t1_us, &e1, NULL), 0);
        if (absdiff(x.t0_ns, e0) > worst) worst = absdiff(x.t0_ns, e0);
        if (absdiff(x.t1_ns, e1) > worst) worst = absdiff(x.t1_ns, e1);
        assert_int_equal(x.uncertainty_ns, unc[x.segment]);
        api[n][0] = x.t0_ns;
        api[n][1] = x.t1_ns;
        api[n][2] = x.uncertainty_ns;
        n++;
    }
    assert_int_equal(rc, 0);
    mw_run_close(c);
    assert_int_equal(n, 2 * (SEG0_WINDOWS + SEG1_WINDOWS));
    assert_true(worst <= 1);

    /* the live stamps (still in the rows) differ from the final times: mapping matters */
    sqlite3 *db;
    char path[160];
    snprintf(path, sizeof path, "%s/trace.db", run);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT segment, meter_t1_us, t1_ns FROM windows",
                                        -1, &q, NULL),
                     SQLITE_OK);
    while (sqlite3_step(q) == SQLITE_ROW) {
        int64_t e;
        mw_meter_map_segment(m, sqlite3_column_int(q, 0), (uint64_t)sqlite3_column_int64(q, 1), &e,
                             NULL);
        if (absdiff(e, sqlite3_column_int64(q, 2)) > moved)
            moved = absdiff(e, sqlite3_column_int64(q, 2));
    }
    sqlite3_finalize(q);
    assert_true(moved > 10000);
    print_message("worst %lld ns, live stamps moved up to %lld ns\n", (long long)worst, (long long)moved);

    /* the view samples: exactly the read API's */
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT t0_ns, t1_ns, uncertainty_ns FROM samples ORDER BY "
                                        "segment, seq, channel",
                                        -1, &q, NULL),
                     SQLITE_OK);
    int i = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        assert_true(i < n);
        for (int j = 0; j < 3; j++)
            assert_int_equal(sqlite3_column_int64(q, j), api[i][j]);
        i++;
    }
    assert_int_equal(i, n);
    sqlite3_finalize(q);

    /* C and SQL on the knots: the same ns at and around every knot, far before, far after */
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT k.t_ns + CAST(round((?3 - k.x_us) * k.slope) AS "
                                        "INTEGER) FROM clock_knots k WHERE k.meter = 1 AND "
                                        "k.segment = ?1 AND k.x_us = coalesce((SELECT max(x_us) "
                                        "FROM clock_knots WHERE meter = 1 AND segment = ?1 AND "
                                        "x_us <= ?3), (SELECT min(x_us) FROM clock_knots WHERE "
                                        "meter = 1 AND segment = ?1))",
                                        -1, &q, NULL),
                     SQLITE_OK);
    for (int s = 0; s < 2; s++)
        for (int j = 0; j < nk[s]; j++)
            for (int64_t d = -3000000; d <= 3000000; d += 499999) {
                int64_t at = k[s][j].x_us + d * (j == 0 || j == nk[s] - 1 ? 97 : 1);
                sqlite3_reset(q);
                sqlite3_bind_int(q, 1, s);
                sqlite3_bind_int64(q, 3, at);
                assert_int_equal(sqlite3_step(q), SQLITE_ROW);
                assert_int_equal(sqlite3_column_int64(q, 0), mw_clock_knots_map(k[s], nk[s], at));
                int64_t e;
                if (at >= 0) { /* and within 1 ns of the fit, extrapolated as it does */
                    assert_int_equal(mw_meter_map_segment(m, s, (uint64_t)at, &e, NULL), 0);
                    assert_true(absdiff(e, mw_clock_knots_map(k[s], nk[s], at)) <= 1);
                }
            }
    sqlite3_finalize(q);

    /* by time: the mapped t1 order; a window is found by its mapped times */
    c = mw_run_windows(r, 2, MW_RUN_BY_TIME);
    int64_t prev = INT64_MIN;
    mw_store_sample first = {0}, last = {0};
    n = 0;
    while ((rc = mw_run_window_next(c, &x)) == 1) {
        assert_true(x.t1_ns >= prev);
        prev = x.t1_ns;
        if (!n++) first = x;
        last = x;
        if (n == 2) { /* a lookup while this cursor is open (mw analyze does) */
            mw_store_sample g;
            assert_int_equal(mw_run_window_find(r, 2, first.t0_ns, first.t1_ns, &g), 1);
            assert_int_equal(g.seq, first.seq);
        }
    }
    assert_int_equal(rc, 0);
    mw_run_close(c);
    assert_int_equal(n, SEG0_WINDOWS + SEG1_WINDOWS);
    mw_store_sample f;
    assert_int_equal(mw_run_window_find(r, 2, first.t0_ns, first.t1_ns, &f), 1);
    assert_int_equal(f.seq, first.seq);
    assert_int_equal(f.segment, first.segment);
    assert_int_equal(mw_run_window_find(r, 2, last.t0_ns, last.t1_ns, &f), 1);
    assert_int_equal(f.seq, last.seq);
    assert_int_equal(f.segment, last.segment);
    assert_int_equal(mw_run_window_find(r, 2, last.t0_ns, last.t1_ns + 1, &f), 0);
    mw_store_close(r);

    sqlite3_close(db);
    mw_meter_close(m);
    mw_store_close(w);
}

/* no knots (a run still recorded, or cut short): the live stamps, as written */
static void without_knots_the_live_stamps(void **state)
{
    mw_meter *m;
    int64_t unc[2];
    mw_clock_knot k[2][MAXK];
    int nk[2];
    mw_store *w = record(&m, 0, unc, k, nk);
    char err[512], path[160];
    mw_store *r = mw_store_open(run, err, sizeof err);
    if (!r) fail_msg("%s", err);
    snprintf(path, sizeof path, "%s/trace.db", run);
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT t0_ns, t1_ns, uncertainty_ns, (SELECT count(*) "
                                        "FROM clock_knots) FROM windows ORDER BY segment, seq",
                                        -1, &q, NULL),
                     SQLITE_OK);
    mw_run_cursor *c = mw_run_windows(r, 1, MW_RUN_BY_WINDOW);
    mw_store_sample x;
    int n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        assert_int_equal(sqlite3_column_int64(q, 3), 0);
        assert_int_equal(mw_run_window_next(c, &x), 1);
        assert_int_equal(x.t0_ns, sqlite3_column_int64(q, 0));
        assert_int_equal(x.t1_ns, sqlite3_column_int64(q, 1));
        assert_int_equal(x.uncertainty_ns, sqlite3_column_int64(q, 2));
        n++;
    }
    assert_int_equal(n, SEG0_WINDOWS + SEG1_WINDOWS);
    sqlite3_finalize(q);
    sqlite3_close(db);
    mw_run_close(c);
    mw_store_close(r);
    mw_meter_close(m);
    mw_store_close(w);
}

/* a version 6 store (its rows restamped at the end) is read as it is: its rows' times,
 * whatever else it holds */
static void version6_reads_its_rows(void **state)
{
    mw_meter *m;
    int64_t unc[2];
    mw_clock_knot k[2][MAXK];
    int nk[2];
    mw_store *w = record(&m, 1, unc, k, nk);
    mw_store_close(w);
    mw_meter_close(m);
    char err[512], path[160];
    snprintf(path, sizeof path, "%s/trace.db", run);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 6", NULL, NULL, NULL), SQLITE_OK);
    mw_store *r = mw_store_open(run, err, sizeof err);
    if (!r) fail_msg("%s", err);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT t0_ns, t1_ns, uncertainty_ns FROM windows "
                                            "ORDER BY segment, seq",
                                        -1, &q, NULL),
                     SQLITE_OK);
    mw_run_cursor *c = mw_run_windows(r, 1, MW_RUN_BY_WINDOW);
    mw_store_sample x;
    int n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        assert_int_equal(mw_run_window_next(c, &x), 1);
        assert_int_equal(x.t0_ns, sqlite3_column_int64(q, 0));
        assert_int_equal(x.t1_ns, sqlite3_column_int64(q, 1));
        assert_int_equal(x.uncertainty_ns, sqlite3_column_int64(q, 2));
        n++;
    }
    assert_int_equal(n, SEG0_WINDOWS + SEG1_WINDOWS);
    sqlite3_finalize(q);
    sqlite3_close(db);
    mw_run_close(c);
    mw_store_close(r);
}

/* a hostile file's knots (extreme times and slopes, a NULL slope, a segment of one point far
 * away): read without overflow (UBSan) or crash, every window handed out */
static void hostile_knots_read(void **state)
{
    char err[512], path[160];
    mw_store *w = mw_store_create(run, 0, err, sizeof err);
    if (!w) fail_msg("%s", err);
    assert_int_equal(mw_store_channel_add(w, 1, "a", NULL, "A1"), 0);
    for (uint32_t i = 0; i < 40; i++) {
        mw_store_sample x = {.channel = 1, .segment = (int)(i / 10), .seq = i,
                             .meter_t0_us = i % 2 ? UINT64_C(0x7fffffffffffff00) : i,
                             .meter_t1_us = i % 2 ? UINT64_C(0x7fffffffffffffff) : i + 1,
                             .t0_ns = 5, .t1_ns = 6, .power_mw = 1};
        assert_int_equal(mw_store_sample_add(w, &x), 0);
    }
    assert_int_equal(mw_store_commit(w), 0);
    mw_store_close(w);
    snprintf(path, sizeof path, "%s/trace.db", run);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "PRAGMA writable_schema = 0; INSERT INTO clock_knots VALUES "
                                  "(1, 0, -9223372036854775808, 9223372036854775807, 1e300, 1), "
                                  "(1, 0, 0, -9223372036854775808, -1e300, 1), "
                                  "(1, 1, 5, 9223372036854775807, 1000.0, 9223372036854775807), "
                                  "(1, 2, 9223372036854775807, 0, 0.0, -1)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    mw_store *r = mw_store_open(run, err, sizeof err);
    if (!r) fail_msg("%s", err);
    for (int order = 0; order < 2; order++) {
        mw_run_cursor *c = mw_run_windows(r, -1, order ? MW_RUN_BY_TIME : MW_RUN_BY_WINDOW);
        mw_store_sample x;
        int n = 0, rc;
        while ((rc = mw_run_window_next(c, &x)) == 1)
            n++;
        assert_int_equal(rc, 0);
        assert_int_equal(n, 40);
        mw_run_close(c);
    }
    mw_store_sample f;
    assert_true(mw_run_window_find(r, 1, 5, 6, &f) >= 0);
    mw_store_close(r);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK); /* the view too */
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), count(t0_ns) FROM samples", -1, &q,
                                        NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 40);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(readers_map_through_the_knots, setup, teardown),
        cmocka_unit_test_setup_teardown(without_knots_the_live_stamps, setup, teardown),
        cmocka_unit_test_setup_teardown(version6_reads_its_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(hostile_knots_read, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
