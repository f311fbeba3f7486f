/* Two meters in one recording (host/record.c: mw_record_set_meter, mw_record_add_meter), each
 * a meter session fed with lines made by the firmware's own encoder, without a port. Meter A
 * (channels 1, 2) sends windows 0..3; meter B (run-wide channels 3, 4) windows 0, 1, 2, 5 with
 * the same meter times, its lines arriving 100 ms later than A's, its loads 3 times A's. One
 * pump of A's session stores both meters' windows under their run-wide channels; B's lost
 * windows are a gap of meter 2 only; mw_record_finish restamps each meter by its own clock
 * model, so B's windows stay 100 ms after A's (a restamp of segment 0 across both meters
 * would have put B on A's line: 0 ms); the link statistics are summed; both ports being gone,
 * the news says the first meter's. A fifth meter is refused.
 * Two meters on ports (ptys) that say nothing: a commit that falls due between their reads is
 * made in that turn, and the next turn then waits its whole time (it used to be cut to 0 ms
 * again and again until a line came: a spin). */
#include "../unit.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <time.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc16.h"
#include "frame.h"
#include "mw_record.h"

#define PERIOD_US 250016

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-recmeters-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A window of two channels: channel k draws p_w x k watts, its counter e_mj x k. */
static void feed_window(mw_meter *m, uint32_t seq, int32_t p_w, int64_t e_mj, int64_t at_ns)
{
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.seq = seq;
    f.t0_us = (uint64_t)seq * PERIOD_US;
    f.t1_us = f.t0_us + PERIOD_US;
    f.flags = seq ? 0 : MW_FLAG_FIRST;
    f.nsets = 401;
    f.freq_mhz = 50000;
    f.vrms_mv = 230000;
    f.nchan = 2;
    for (int k = 0; k < 2; k++) {
        f.p_mw[k] = 1000 * p_w * (k + 1);
        f.irms_ua[k] = 500000;
        f.pf_milli[k] = 950;
        f.e_mj[k] = e_mj * (k + 1);
    }
    char buf[1200];
    mw_meter_feed(m, buf, mw_frame_encode(&f, buf, sizeof buf), at_ns);
}

static const char *rows(const char *sql)
{
    static char out[2048];
    char db[128];
    snprintf(db, sizeof db, "%s/run/%s", tmpdir, MW_STORE_DB_NAME);
    sqlite3 *h;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    size_t len = 0;
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int i = 0; i < sqlite3_column_count(st); i++)
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%s",
                                    (const char *)sqlite3_column_text(st, i),
                                    i + 1 < sqlite3_column_count(st) ? "|" : "\n");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

static void two_meters_each_its_own(void **state)
{
    char run[96], err[512];
    snprintf(run, sizeof run, "%s/run", tmpdir);
    mw_store *st = mw_store_create(run, 0, err, sizeof err);
    if (!st) fail_msg("%s", err);
    assert_int_equal(mw_store_meter_add(st, 1, "A", NULL, NULL, 0, 0), 0);
    assert_int_equal(mw_store_meter_add(st, 2, "B", NULL, NULL, 0, 0), 0);
    assert_int_equal(mw_store_channel_add_meter(st, 1, "a1", NULL, "A1", 1, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(st, 2, "a2", NULL, "A2", 1, 2), 0);
    assert_int_equal(mw_store_channel_add_meter(st, 3, "b1", NULL, "A1", 2, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(st, 4, "b2", NULL, "A2", 2, 2), 0);
    mw_meter *ma = mw_meter_new(), *mb = mw_meter_new();
    int64_t t = 1700000000000000000LL, late = 100000000;
    for (uint32_t k = 0; k < 4; k++)
        feed_window(ma, k, 100, 25 * (k + 1), t + (int64_t)(k + 1) * PERIOD_US * 1000);
    const uint32_t bseq[] = {0, 1, 2, 5};
    for (int i = 0; i < 4; i++)
        feed_window(mb, bseq[i], 300, 75 * (bseq[i] + 1),
                    t + (int64_t)(bseq[i] + 1) * PERIOD_US * 1000 + late);

    mw_record *ra = mw_record_new(ma, st, "/nonexistent/a", 2, 0);
    mw_record *rb = mw_record_new(mb, st, "/nonexistent/b", 2, 0);
    mw_record_set_meter(ra, 1, 1, "A");
    mw_record_set_meter(rb, 2, 3, "B");
    assert_int_equal(mw_record_add_meter(ra, rb), 0);
    mw_record_news n;
    assert_int_equal(mw_record_pump(ra, 0, &n), 0);
    assert_true(n.pumped);
    assert_true(n.lost); /* no ports: gone once the queues are drained */
    assert_string_equal(n.port, "/nonexistent/a");
    assert_int_equal(mw_record_windows(ra), 4);
    assert_int_equal(mw_record_windows(rb), 4);
    assert_float_equal(mw_record_power_w(rb, 2), 600.0, 1e-9);
    assert_int_equal(mw_record_energy_mj(rb, 1), 75 * 6);
    assert_int_equal(mw_record_finish(ra, "complete", err, sizeof err), 0);
    assert_int_equal(mw_store_commit(st), 0);

    /* more than MW_RECORD_MAX_METERS in all: refused */
    mw_record *extra[MW_RECORD_MAX_METERS];
    for (int i = 0; i < MW_RECORD_MAX_METERS; i++)
        extra[i] = mw_record_new(ma, st, "/nonexistent/x", 2, 0);
    for (int i = 1; i < MW_RECORD_MAX_METERS; i++)
        assert_int_equal(mw_record_add_meter(extra[0], extra[i]), 0);
    assert_int_equal(mw_record_add_meter(extra[0], rb), -1);
    for (int i = 0; i < MW_RECORD_MAX_METERS; i++)
        mw_record_free(extra[i]);
    /* a meter writing into another store: refused (one commit a turn is for one store) */
    mw_record *one = mw_record_new(ma, st, "/nonexistent/x", 2, 0);
    char run2[96];
    snprintf(run2, sizeof run2, "%s/run2", tmpdir);
    mw_store *st2 = mw_store_create(run2, 0, err, sizeof err);
    assert_non_null(st2);
    mw_record *other = mw_record_new(ma, st2, "/nonexistent/y", 2, 0);
    assert_int_equal(mw_record_add_meter(one, other), -1);
    mw_record_free(one);
    mw_record_free(other);
    mw_store_close(st2);

    mw_record_free(ra);
    mw_record_free(rb);
    mw_meter_close(ma);
    mw_meter_close(mb);
    mw_store_close(st);
    assert_string_equal(rows("SELECT channel, count(*), avg(power_mw), max(energy_mj) FROM samples "
                             "GROUP BY channel"),
                        "1|4|100000.0|100\n2|4|200000.0|200\n3|4|300000.0|450\n4|4|600000.0|900\n");
    assert_string_equal(rows("SELECT meter, reason FROM gaps"), "2|sequence gap (2 windows lost)\n");
    /* each meter on its own clock: B's windows 100 ms after A's of the same seq (within the
     * models' 1 ms), A's 3 periods apart from first to last */
    assert_string_equal(
        rows("SELECT count(*), sum(abs(b.t1_ns - a.t1_ns - 100000000) < 1000000) FROM samples a "
             "JOIN samples b ON a.seq = b.seq AND a.segment = b.segment WHERE a.channel = 1 AND "
             "b.channel = 3"),
        "3|3\n");
    assert_string_equal(rows("SELECT abs(max(t1_ns) - min(t1_ns) - 3 * 250016000) < 1000000 "
                             "FROM samples WHERE channel = 2"),
                        "1\n");
    assert_string_equal(rows("SELECT key, value FROM meta WHERE key IN ('meter_lost_windows', "
                             "'reconnects', 'status') ORDER BY key"),
                        "meter_lost_windows|2\nreconnects|0\nstatus|complete\n");
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A meter session on a fresh pty (its master in *master). */
static mw_meter *pty_meter(int *master)
{
    *master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(*master >= 0);
    assert_int_equal(grantpt(*master), 0);
    assert_int_equal(unlockpt(*master), 0);
    mw_port_err why;
    char err[256];
    mw_port *p = mw_port_open(ptsname(*master), &why, err, sizeof err);
    if (!p) fail_msg("%s", err);
    mw_meter *m = mw_meter_new();
    mw_meter_set_port(m, p);
    return m;
}

static void commit_due_between_reads(void **state)
{
    char run[96], err[512];
    snprintf(run, sizeof run, "%s/quiet", tmpdir);
    mw_store *st = mw_store_create(run, 0, err, sizeof err);
    if (!st) fail_msg("%s", err);
    int fa, fb;
    mw_meter *ma = pty_meter(&fa), *mb = pty_meter(&fb);
    mw_record *ra = mw_record_new(ma, st, "a", 2, 0);
    mw_record *rb = mw_record_new(mb, st, "b", 2, 0);
    mw_record_set_meter(ra, 1, 1, "A");
    mw_record_set_meter(rb, 2, 3, "B");
    assert_int_equal(mw_record_add_meter(ra, rb), 0);
    mw_store_set_commit_interval_ns(st, 50000000);
    mw_record_news n;
    mw_record_pump(ra, 0, &n); /* the first turn reads both */
    assert_int_equal(mw_store_meta_set(st, "k", "v"), 0);
    assert_true(mw_store_commit_due_ns(st) != INT64_MAX);
    struct timespec ts = {0, 60000000};
    nanosleep(&ts, NULL); /* the commit is due; the meters' next read (250 ms) is not */
    assert_int_equal(mw_record_pump(ra, 100, &n), 0);
    assert_true(mw_store_commit_due_ns(st) == INT64_MAX); /* committed */
    int64_t t0 = mono_ns();
    mw_record_pump(ra, 100, &n);
    assert_true(mono_ns() - t0 >= 90000000); /* waited, did not spin */
    mw_record_free(ra);
    mw_record_free(rb);
    mw_meter_close(ma);
    mw_meter_close(mb);
    close(fa);
    close(fb);
    mw_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(two_meters_each_its_own, setup, teardown),
        cmocka_unit_test_setup_teardown(commit_due_between_reads, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
