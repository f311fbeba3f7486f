/* The recording session (host/record.c, mw_record.h) on a meter session fed with lines made
 * by the firmware's own encoder, without a port: one pump stores every window of every
 * channel, keeps the energy continuous across a meter reset (base = the last energy seen),
 * stores a gap for lost windows and one for the reset with the boot line's cause, and, the
 * port being gone once the queue is drained, says the meter was lost; a pump while it is
 * gone tries the port, says nothing, stores nothing. mw_record_finish writes the closing
 * metadata. A meter whose time stood still gets a new segment and a gap, its energy not
 * rebased. A pump on a silent port waits no longer than the store's commit falling due
 * (mw_store_commit_due_ns: 1 s after the last commit), and commits: what was written is
 * readable by another connection within the second, with no window to wake it. */
#include "../unit.h"

#include <ftw.h>
#include <pty.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
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
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-record-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A window of two channels: channel k draws 100 W x k, its counter e_mj. */
static void feed_window(mw_meter *m, uint32_t seq, uint8_t flags, int64_t e_mj, int64_t at_ns)
{
    mw_frame f;
    memset(&f, 0, sizeof f);
    f.seq = seq;
    f.t0_us = (uint64_t)seq * PERIOD_US;
    f.t1_us = f.t0_us + PERIOD_US;
    f.flags = flags;
    f.nsets = 401;
    f.freq_mhz = 50000;
    f.vrms_mv = 230000;
    f.nchan = 2;
    for (int k = 0; k < 2; k++) {
        f.p_mw[k] = 100000 * (k + 1);
        f.irms_ua[k] = 500000;
        f.pf_milli[k] = 950;
        f.e_mj[k] = e_mj * (k + 1);
    }
    char buf[1200];
    mw_meter_feed(m, buf, mw_frame_encode(&f, buf, sizeof buf), at_ns);
}

static void feed_body(mw_meter *m, const char *body)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s*%04X\r\n", body, mw_crc16(body, strlen(body)));
    mw_meter_feed(m, buf, (size_t)n, 1);
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

static void windows_gaps_energy_and_loss(void **state)
{
    char run[96], err[512];
    snprintf(run, sizeof run, "%s/run", tmpdir);
    mw_store *st = mw_store_create(run, 0, err, sizeof err);
    if (!st) fail_msg("%s", err);
    assert_int_equal(mw_store_channel_add(st, 1, "a", NULL, "A1"), 0);
    assert_int_equal(mw_store_channel_add(st, 2, "b", NULL, "A2"), 0);
    mw_meter *m = mw_meter_new();
    int64_t t = 1700000000000000000LL;
    /* segment 0: windows 0, 1, 2, then 5 (3 and 4 lost); the meter resets (watchdog, MCUSR
     * bit 3) and segment 1 begins with its counter at 0 */
    feed_window(m, 0, MW_FLAG_FIRST, 10, t);
    feed_window(m, 1, 0, 20, t + 250000000);
    feed_window(m, 2, 0, 30, t + 500000000);
    feed_window(m, 5, 0, 60, t + 1250000000);
    feed_body(m, "B,8,1");
    feed_window(m, 0, MW_FLAG_FIRST, 5, t + 2000000000);
    feed_window(m, 1, 0, 15, t + 2250000000);

    mw_record *r = mw_record_new(m, st, "/nonexistent/mw-port", 2, 0);
    assert_non_null(r);
    mw_record_news n;
    assert_int_equal(mw_record_pump(r, 0, &n), 0);
    assert_true(n.pumped);
    assert_true(n.lost); /* no port: gone once the queue is drained */
    assert_false(n.back || n.write_failed || n.commit_failed || n.no_window || n.spawn_errno);
    assert_int_equal(mw_record_windows(r), 6);
    assert_false(mw_record_connected(r));
    assert_float_equal(mw_record_power_w(r, 2), 200.0, 1e-9);
    assert_int_equal(mw_record_energy_mj(r, 1), 60 + 15);
    assert_int_equal(mw_record_energy_mj(r, 2), 120 + 30);
    /* gone: the port is tried (and cannot be opened), nothing else happens */
    assert_int_equal(mw_record_pump(r, 10, &n), 0);
    assert_false(n.back || n.lost || n.write_failed);
    assert_int_equal(mw_record_windows(r), 6);

    assert_int_equal(mw_record_finish(r, "complete", err, sizeof err), 0);
    assert_int_equal(mw_store_commit(st), 0);
    mw_record_free(r);
    mw_meter_close(m);
    mw_store_close(st);
    assert_string_equal(rows("SELECT segment, seq, energy_mj, meter_energy_mj FROM samples "
                             "WHERE channel = 2 ORDER BY segment, seq"),
                        "0|0|20|20\n0|1|40|40\n0|2|60|60\n0|5|120|120\n1|0|130|10\n1|1|150|30\n");
    assert_string_equal(rows("SELECT reason FROM gaps ORDER BY start_ns"),
                        "sequence gap (2 windows lost)\nmeter reset (watchdog)\n");
    assert_string_equal(rows("SELECT count(*) FROM gaps WHERE end_ns < start_ns"), "0\n");
    assert_string_equal(rows("SELECT key, value FROM meta WHERE key IN ('status', 'reconnects', "
                             "'meter_restarts', 'meter_lost_windows') ORDER BY key"),
                        "meter_lost_windows|2\nmeter_restarts|1\nreconnects|0\nstatus|complete\n");
    assert_string_equal(rows("SELECT count(*) FROM meta WHERE key IN ('clock_drift_ppm', "
                             "'clock_uncertainty_ns', 'end_ns')"),
                        "3\n");
}

static void meter_time_step_keeps_energy(void **state)
{
    /* the meter's time stood still 4 s between windows 9 and 10 (a simulated board stopped
     * with its recorder), its counter going on: a new segment, a gap over the 4 s, the energy
     * not rebased (a reset would add the last energy to the counter) */
    char run[96], err[512];
    snprintf(run, sizeof run, "%s/run", tmpdir);
    mw_store *st = mw_store_create(run, 0, err, sizeof err);
    if (!st) fail_msg("%s", err);
    assert_int_equal(mw_store_channel_add(st, 1, "a", NULL, "A1"), 0);
    assert_int_equal(mw_store_channel_add(st, 2, "b", NULL, "A2"), 0);
    mw_meter *m = mw_meter_new();
    int64_t t = 1700000000000000000LL;
    for (uint32_t k = 0; k < 20; k++)
        feed_window(m, k, k ? 0 : MW_FLAG_FIRST, 25000 * (int64_t)(k + 1),
                    t + (int64_t)(k + 1) * PERIOD_US * 1000 + (k >= 10 ? 4000000000LL : 0));
    mw_record *r = mw_record_new(m, st, "/nonexistent/mw-port", 2, 0);
    mw_record_news n;
    assert_int_equal(mw_record_pump(r, 0, &n), 0);
    assert_int_equal(mw_record_finish(r, "complete", err, sizeof err), 0);
    assert_int_equal(mw_store_commit(st), 0);
    mw_record_free(r);
    mw_meter_close(m);
    mw_store_close(st);
    assert_string_equal(rows("SELECT segment, count(*), min(seq), max(seq) FROM samples "
                             "WHERE channel = 1 GROUP BY segment"),
                        "0|10|0|9\n1|10|10|19\n");
    assert_string_equal(rows("SELECT count(*) FROM samples WHERE energy_mj <> meter_energy_mj"),
                        "0\n");
    assert_string_equal(rows("SELECT reason, end_ns - start_ns BETWEEN 3999000000 AND 4001000000 "
                             "FROM gaps"),
                        "meter time fell behind (4.0 s)|1\n");
    assert_string_equal(rows("SELECT value FROM meta WHERE key = 'meter_time_steps'"), "1\n");
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void silent_port_waits_for_the_commit(void **state)
{
    char run[96], err[512], slave[256], buf[64];
    snprintf(run, sizeof run, "%s/run", tmpdir);
    mw_store *st = mw_store_create(run, 0, err, sizeof err);
    if (!st) fail_msg("%s", err);
    assert_int_equal(mw_store_commit(st), 0);
    assert_true(mw_store_commit_due_ns(st) == INT64_MAX); /* nothing waiting */
    int master, sl;
    assert_int_equal(openpty(&master, &sl, slave, NULL, NULL), 0);
    close(sl);
    mw_meter *m = mw_meter_new();
    mw_port *p = mw_port_open(slave, NULL, err, sizeof err);
    if (!p) fail_msg("%s", err);
    mw_meter_set_port(m, p);
    mw_record *r = mw_record_new(m, st, slave, 2, 0);
    int64_t t0 = mono_ns();
    assert_int_equal(mw_store_meta_set(st, "probe", "written"), 0); /* opens a transaction */
    int64_t due = mw_store_commit_due_ns(st);
    assert_true(due > t0 - 1000000000LL && due <= t0 + 1000000000LL);
    mw_store *rd = mw_store_open(run, err, sizeof err);
    if (!rd) fail_msg("%s", err);
    assert_int_not_equal(mw_store_meta_get(rd, "probe", buf, sizeof buf), 0); /* not yet */
    mw_record_news n;
    int pumps = 0;
    while (mw_store_commit_due_ns(st) != INT64_MAX && pumps < 10) {
        assert_int_equal(mw_record_pump(r, 5000, &n), 0);
        pumps++;
    }
    double el_s = (double)(mono_ns() - t0) * 1e-9;
    assert_true(pumps <= 3);                    /* woke for the commit, not on a tick */
    /* within the second (a late wake-up on a loaded machine: < 3 s), not the 5 s asked */
    assert_true(el_s >= 0.0 && el_s < 3.0);
    assert_true(mw_store_commit_due_ns(st) == INT64_MAX);
    assert_int_equal(mw_store_meta_get(rd, "probe", buf, sizeof buf), 0);
    assert_string_equal(buf, "written");
    mw_store_close(rd);
    mw_record_free(r);
    mw_meter_close(m);
    mw_store_close(st);
    close(master);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(windows_gaps_energy_and_loss, setup, teardown),
        cmocka_unit_test_setup_teardown(meter_time_step_keeps_energy, setup, teardown),
        cmocka_unit_test_setup_teardown(silent_port_waits_for_the_commit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
