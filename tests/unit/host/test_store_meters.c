/* Several meters in one run (schema version 5, docs/run-store.md): meters written with
 * mw_store_meter_add come back from mw_run_meters with every column (a negative offset
 * too); channels keep their run-wide number and carry their meter and meter channel; the
 * one-meter mw_store_channel_add makes meter 1 "meter", which a later mw_store_meter_add of
 * meter 1 replaces; a meter's gap names its meter, a run-wide one reads meter 0; a meter
 * name used twice and meter 0 are refused. Restamping one meter's segment 0 touches only
 * that meter's channels, though both meters have windows (segment 0, seq 0..2) with the same
 * keys. A version 4 run (the tables as version 4 made them) reads as one meter: named by
 * the serial of its meta meter_usb, "meter" for a simulated board, its channels on meter 1
 * with meter_channel = channel, its gaps run-wide. */
#include "../unit.h"

#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_run.h"
#include "mw_store.h"

static char tmpdir[64], dir[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static mw_store *fresh(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-meters-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char err[256];
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void done(mw_store *s)
{
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static mw_store *reopen(mw_store *s)
{
    char err[256];
    assert_int_equal(mw_store_commit(s), 0);
    mw_store_close(s);
    s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void sample(mw_store *s, int channel, int seq, int64_t t0_ns)
{
    mw_store_sample x = {.channel = channel,
                         .segment = 0,
                         .seq = (uint32_t)seq,
                         .meter_t0_us = 250000u * (unsigned)seq,
                         .meter_t1_us = 250000u * (unsigned)(seq + 1),
                         .t0_ns = t0_ns,
                         .t1_ns = t0_ns + 250,
                         .power_mw = 100 * channel};
    assert_int_equal(mw_store_sample_add(s, &x), 0);
}

static void two_meters(void **state)
{
    mw_store *s = fresh();
    /* the one-meter form first: meter 1 "meter", replaced below */
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_meter_add(s, 1, "8503631383535160E1A1", "h1", "/dev/ttyACM0", 0, 0),
                     0);
    assert_int_equal(mw_store_meter_add(s, 2, "sim-2", "h2", NULL, -1500000, 20000), 0);
    assert_int_equal(mw_store_meter_add(s, 3, "sim-2", NULL, NULL, 0, 0), -1); /* name taken */
    assert_int_equal(mw_store_meter_add(s, 0, "zero", NULL, NULL, 0, 0), -1);
    assert_int_equal(mw_store_channel_add_meter(s, 2, "node1", "n1", "A1", 2, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 3, "switch", NULL, "A3", 2, 3), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 4, "bad", NULL, NULL, 0, 1), -1);
    assert_int_equal(mw_store_gap_add_meter(s, 100, 200, "disconnected", 2), 0);
    assert_int_equal(mw_store_gap_add(s, 300, 400, "sequence gap"), 0);
    s = reopen(s);

    mw_run_counts n;
    assert_int_equal(mw_run_count(s, &n), 0);
    assert_true(n.meters == 2 && n.channels == 3 && n.gaps == 2);
    mw_run_cursor *c = mw_run_meters(s);
    mw_run_meter m;
    assert_int_equal(mw_run_meter_next(c, &m), 1);
    assert_int_equal(m.meter, 1);
    assert_string_equal(m.name, "8503631383535160E1A1");
    assert_string_equal(m.host, "h1");
    assert_string_equal(m.port, "/dev/ttyACM0");
    assert_int_equal(mw_run_meter_next(c, &m), 1);
    assert_int_equal(m.meter, 2);
    assert_string_equal(m.name, "sim-2");
    assert_null(m.port);
    assert_true(m.clock_offset_ns == -1500000);
    assert_true(m.clock_uncertainty_ns == 20000);
    assert_int_equal(mw_run_meter_next(c, &m), 0);
    mw_run_close(c);

    const int want[][3] = {{1, 1, 1}, {2, 2, 1}, {3, 2, 3}}; /* channel, meter, meter channel */
    c = mw_run_channels(s);
    mw_run_channel ch;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(mw_run_channel_next(c, &ch), 1);
        assert_int_equal(ch.channel, want[i][0]);
        assert_int_equal(ch.meter, want[i][1]);
        assert_int_equal(ch.meter_channel, want[i][2]);
    }
    assert_int_equal(mw_run_channel_next(c, &ch), 0);
    mw_run_close(c);

    c = mw_run_gaps(s);
    mw_run_gap g;
    assert_int_equal(mw_run_gap_next(c, &g), 1);
    assert_true(g.start_ns == 100);
    assert_int_equal(g.meter, 2);
    assert_int_equal(mw_run_gap_next(c, &g), 1);
    assert_true(g.start_ns == 300);
    assert_int_equal(g.meter, 0);
    assert_int_equal(mw_run_gap_next(c, &g), 0);
    mw_run_close(c);
    done(s);
}

/* meter 2's segment 0 mapped by one clock knot (1 ms + 1 ns per us of meter time): meter
 * 1's windows keep their own times */
static void knots_of_one_meter(void **state)
{
    mw_store *s = fresh();
    assert_int_equal(mw_store_meter_add(s, 1, "a", NULL, NULL, 0, 0), 0);
    assert_int_equal(mw_store_meter_add(s, 2, "b", NULL, NULL, 0, 0), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 1, "a1", NULL, NULL, 1, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 2, "b1", NULL, NULL, 2, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 3, "b2", NULL, NULL, 2, 2), 0);
    for (int seq = 0; seq < 3; seq++)
        for (int ch = 1; ch <= 3; ch++)
            sample(s, ch, seq, 7);
    mw_clock_knot k = {.x_us = 0, .t_ns = 1000000, .slope_ns_per_us = 1.0};
    assert_int_equal(mw_store_knots_add(s, 2, 0, &k, 1, 55), 0);
    s = reopen(s);
    mw_run_cursor *c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW);
    mw_store_sample w;
    int n = 0;
    while (mw_run_window_next(c, &w) == 1) {
        if (w.channel == 1) { /* meter 1: untouched */
            assert_true(w.t0_ns == 7);
            assert_true(w.uncertainty_ns == 0);
        } else {
            assert_true(w.t0_ns == 1000000 + 250000 * (int64_t)w.seq);
            assert_true(w.t1_ns == 1000000 + 250000 * (int64_t)(w.seq + 1));
            assert_true(w.uncertainty_ns == 55);
        }
        n++;
    }
    assert_int_equal(n, 9);
    mw_run_close(c);
    done(s);
}

/* The run made now, turned into what version 4 made: no meters, channels and gaps without
 * the meter columns. */
static void make_v4(const char *meter_usb)
{
    mw_store *s = fresh();
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    assert_int_equal(mw_store_gap_add(s, 10, 20, "disconnected"), 0);
    assert_int_equal(mw_store_meta_set(s, "meter_usb", meter_usb), 0);
    assert_int_equal(mw_store_meta_set(s, "meter_port", "/dev/ttyACM3"), 0);
    assert_int_equal(mw_store_commit(s), 0);
    mw_store_close(s);
    char path[200];
    snprintf(path, sizeof path, "%s/trace.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db,
                     "CREATE TABLE c4 (channel INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, "
                     "host TEXT, pin TEXT); INSERT INTO c4 SELECT channel, name, host, pin FROM "
                     "channels; DROP TABLE channels; ALTER TABLE c4 RENAME TO channels; "
                     "ALTER TABLE gaps DROP COLUMN meter; DROP TABLE meters; "
                     "PRAGMA user_version = 4",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
}

static void version4_is_one_meter(const char *meter_usb, const char *name)
{
    make_v4(meter_usb);
    char err[256];
    mw_store *s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    mw_run_counts n;
    assert_int_equal(mw_run_count(s, &n), 0);
    assert_true(n.meters == 1 && n.channels == 2);
    mw_run_cursor *c = mw_run_meters(s);
    mw_run_meter m;
    assert_int_equal(mw_run_meter_next(c, &m), 1);
    assert_int_equal(m.meter, 1);
    assert_string_equal(m.name, name);
    assert_string_equal(m.port, "/dev/ttyACM3");
    assert_true(m.clock_offset_ns == 0);
    assert_int_equal(mw_run_meter_next(c, &m), 0);
    mw_run_close(c);
    c = mw_run_channels(s);
    mw_run_channel ch;
    for (int k = 1; k <= 2; k++) {
        assert_int_equal(mw_run_channel_next(c, &ch), 1);
        assert_int_equal(ch.meter, 1);
        assert_int_equal(ch.meter_channel, k);
    }
    assert_int_equal(mw_run_channel_next(c, &ch), 0);
    mw_run_close(c);
    c = mw_run_gaps(s);
    mw_run_gap g;
    assert_int_equal(mw_run_gap_next(c, &g), 1);
    assert_int_equal(g.meter, 0);
    assert_string_equal(g.reason, "disconnected");
    mw_run_close(c);
    /* a writer needs version 6 */
    mw_store *w = mw_store_open_write(dir, err, sizeof err);
    assert_null(w);
    assert_non_null(strstr(err, "schema version 4 is older"));
    done(s);
}

static void version4_usb(void **state)
{
    version4_is_one_meter("2341:0042 8503631383535160E1A1", "8503631383535160E1A1");
}

static void version4_sim(void **state)
{
    version4_is_one_meter("none (simulated board)", "meter");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_meters),
        cmocka_unit_test(knots_of_one_meter),
        cmocka_unit_test(version4_usb),
        cmocka_unit_test(version4_sim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
