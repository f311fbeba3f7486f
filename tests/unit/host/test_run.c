/* The run store's read API (host/run.c, mw_run.h), on a run written through the write API
 * with known rows: channels in channel order with NULL hosts kept NULL; windows of one
 * channel by time and of all channels by (segment, seq, channel), every column round trip;
 * phase filters (kinds kept, kinds left out, exact name, one rank, ranked only, spans only,
 * by rank) each against the hand-listed rows it must return; hostile kinds and names are
 * data, never SQL; gaps, meta and counts; a cursor of the wrong kind is refused. A forged
 * 32-bit column out of its range (power_mw = INT64_MAX, vrms_mv = 2^31) is refused with the
 * column and value named and mw_store_bad_input set, never truncated (INT32_MAX itself
 * reads back); a trace.db that is not a database is refused with errno EINVAL. */
#include "../unit.h"

#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_run.h"
#include "mw_store.h"

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static mw_store *written(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-run-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], err[256];
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node1", "h1", NULL), 0);
    /* windows: segment 0 seq 0..2 on both channels, written out of time order */
    for (int seq = 2; seq >= 0; seq--)
        for (int ch = 1; ch <= 2; ch++) {
            mw_store_sample x = {.channel = ch,
                                 .segment = 0,
                                 .seq = (uint32_t)seq,
                                 .meter_t0_us = 250000u * seq,
                                 .meter_t1_us = 250000u * (seq + 1),
                                 .t0_ns = 1000 + 250 * seq,
                                 .t1_ns = 1250 + 250 * seq,
                                 .uncertainty_ns = 7,
                                 .power_mw = 1000 * ch + seq,
                                 .vrms_mv = 230000,
                                 .irms_ua = -5,
                                 .pf_milli = 999,
                                 .meter_energy_mj = INT64_MAX - seq,
                                 .energy_mj = seq,
                                 .flags = 3u};
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    const mw_store_phase ph[] = {
        {0, "h1", 0, "user", "compute", 300, 400, 0, 11, -1},
        {1, "h1", 0, "mpi", "MPI_Send", 100, 200, 64, 12, 0},
        {-1, "", 0, "mw", "idle-before", 0, 100, 0, 0, -1},
        {0, "h1", 0, "counter", "eeg version", 50, 50, 3, 11, -1},
        {1, "h1", 0, "user'); DROP TABLE phases; --", "x", 150, 160, 0, 12, -1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    assert_int_equal(mw_store_gap_add(s, 500, 600, "disconnected"), 0);
    assert_int_equal(mw_store_gap_add(s, 100, 120, "sequence gap"), 0);
    assert_int_equal(mw_store_meta_set(s, "z", "last"), 0);
    assert_int_equal(mw_store_meta_set(s, "a", "first"), 0);
    assert_int_equal(mw_store_commit(s), 0);
    return s;
}

static void done(mw_store *s)
{
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void channels_in_order(void **state)
{
    mw_store *s = written();
    mw_run_cursor *c = mw_run_channels(s);
    assert_non_null(c);
    mw_run_channel ch;
    assert_int_equal(mw_run_channel_next(c, &ch), 1);
    assert_int_equal(ch.channel, 1);
    assert_string_equal(ch.name, "node1");
    assert_string_equal(ch.host, "h1");
    assert_null(ch.pin);
    assert_int_equal(mw_run_channel_next(c, &ch), 1);
    assert_int_equal(ch.channel, 2);
    assert_null(ch.host);
    assert_string_equal(ch.pin, "A2");
    assert_int_equal(mw_run_channel_next(c, &ch), 0);
    mw_store_sample w; /* a cursor of another kind is refused */
    assert_int_equal(mw_run_window_next(c, &w), -1);
    mw_run_close(c);
    done(s);
}

static void windows_by_time_and_by_window(void **state)
{
    mw_store *s = written();
    mw_run_cursor *c = mw_run_windows(s, 2, MW_RUN_BY_TIME);
    mw_store_sample w;
    for (int seq = 0; seq < 3; seq++) {
        assert_int_equal(mw_run_window_next(c, &w), 1);
        assert_int_equal(w.channel, 2);
        assert_int_equal(w.seq, seq);
        assert_int_equal(w.t1_ns, 1250 + 250 * seq);
        assert_int_equal(w.power_mw, 2000 + seq);
        assert_int_equal(w.irms_ua, -5);
        assert_true(w.meter_energy_mj == INT64_MAX - seq);
        assert_int_equal(w.flags, 3);
        assert_int_equal(w.uncertainty_ns, 7);
        assert_int_equal(w.meter_t1_us, 250000u * (seq + 1));
    }
    assert_int_equal(mw_run_window_next(c, &w), 0);
    mw_run_close(c);
    c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(mw_run_window_next(c, &w), 1);
        assert_int_equal(w.seq, i / 2);
        assert_int_equal(w.channel, 1 + i % 2);
    }
    assert_int_equal(mw_run_window_next(c, &w), 0);
    mw_run_close(c);
    done(s);
}

/* the start_ns of every phase the filter passes, in order, into got; returns how many */
static int starts(mw_store *s, const mw_run_phase_filter *f, int64_t *got, int max)
{
    mw_run_cursor *c = mw_run_phases(s, f);
    assert_non_null(c);
    mw_store_phase p;
    int n = 0, rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1)
        if (n < max) got[n++] = p.start_ns;
    assert_int_equal(rc, 0);
    mw_run_close(c);
    return n;
}

static void phase_filters(void **state)
{
    mw_store *s = written();
    int64_t g[8];
    mw_run_phase_filter f = mw_run_phase_all();
    assert_int_equal(starts(s, &f, g, 8), 5);
    assert_true(g[0] == 0 && g[1] == 50 && g[2] == 100 && g[3] == 150 && g[4] == 300);
    static const char *const work[] = {"user", "mpi", NULL};
    f.kinds = work;
    assert_int_equal(starts(s, &f, g, 8), 2);
    assert_true(g[0] == 100 && g[1] == 300);
    f = mw_run_phase_all();
    static const char *const hostile[] = {"user'); DROP TABLE phases; --", NULL};
    f.kinds = hostile; /* data, not SQL: finds its one row, drops nothing */
    assert_int_equal(starts(s, &f, g, 8), 1);
    assert_true(g[0] == 150);
    f = mw_run_phase_all();
    static const char *const not_mw[] = {"mw", "counter", NULL};
    f.not_kinds = not_mw;
    f.spans = 1;
    assert_int_equal(starts(s, &f, g, 8), 3);
    f = mw_run_phase_all();
    f.name = "eeg version";
    assert_int_equal(starts(s, &f, g, 8), 1);
    assert_true(g[0] == 50);
    f = mw_run_phase_all();
    f.rank = 1;
    assert_int_equal(starts(s, &f, g, 8), 2);
    assert_true(g[0] == 100 && g[1] == 150);
    f = mw_run_phase_all();
    f.ranked = 1;
    f.order = MW_RUN_BY_RANK;
    assert_int_equal(starts(s, &f, g, 8), 4);
    assert_true(g[0] == 50 && g[1] == 300 && g[2] == 100 && g[3] == 150);
    static const char *const none[] = {NULL};
    f = mw_run_phase_all();
    f.kinds = none; /* an empty list keeps nothing */
    assert_int_equal(starts(s, &f, g, 8), 0);
    /* every column of one row */
    f = mw_run_phase_all();
    f.kinds = (const char *const[]){"mpi", NULL};
    mw_run_cursor *c = mw_run_phases(s, &f);
    mw_store_phase p;
    assert_int_equal(mw_run_phase_next(c, &p), 1);
    assert_int_equal(p.rank, 1);
    assert_string_equal(p.host, "h1");
    assert_string_equal(p.name, "MPI_Send");
    assert_int_equal(p.end_ns, 200);
    assert_int_equal(p.bytes, 64);
    assert_int_equal(p.pid, 12);
    assert_int_equal(p.peer, 0);
    mw_run_close(c);
    done(s);
}

static void gaps_meta_counts(void **state)
{
    mw_store *s = written();
    mw_run_cursor *c = mw_run_gaps(s);
    mw_run_gap g;
    assert_int_equal(mw_run_gap_next(c, &g), 1);
    assert_int_equal(g.start_ns, 100);
    assert_string_equal(g.reason, "sequence gap");
    assert_int_equal(mw_run_gap_next(c, &g), 1);
    assert_int_equal(g.end_ns, 600);
    assert_int_equal(mw_run_gap_next(c, &g), 0);
    mw_run_close(c);
    c = mw_run_meta(s);
    const char *k, *v;
    int n = 0, seen_a = 0;
    while (mw_run_meta_next(c, &k, &v) == 1) {
        if (!strcmp(k, "a")) {
            assert_int_equal(n, 0); /* by key: "a" first (schema_version etc. sort after) */
            assert_string_equal(v, "first");
            seen_a = 1;
        }
        n++;
    }
    assert_true(seen_a);
    mw_run_close(c);
    mw_run_counts ct;
    assert_int_equal(mw_run_count(s, &ct), 0);
    assert_int_equal(ct.samples, 6);
    assert_int_equal(ct.gaps, 2);
    assert_int_equal(ct.phases, 5);
    assert_int_equal(ct.channels, 2);
    assert_int_equal(ct.gap_ns, 120);
    done(s);
}

/* the written run, closed, with sql applied by SQLite itself, opened read-only again */
static mw_store *forged(const char *sql)
{
    mw_store *w = written();
    char db[160], dir[128], err[256];
    snprintf(db, sizeof db, "%s", mw_store_path(w));
    mw_store_close(w);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    snprintf(dir, sizeof dir, "%s/r", tmpdir);
    mw_store *s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_bad_input(s), 0);
    return s;
}

static void out_of_range_refused(void **state)
{
    /* (version 6: channel 1 is slot 1 of its windows' rows, channel 2 slot 2) */
    mw_store *s = forged("UPDATE windows SET p1 = 9223372036854775807 WHERE channel0 = 1 "
                         "AND seq = 1; UPDATE windows SET p1 = 2147483647 WHERE channel0 = 1 "
                         "AND seq = 0");
    mw_run_cursor *c = mw_run_windows(s, 1, MW_RUN_BY_TIME);
    mw_store_sample w;
    assert_int_equal(mw_run_window_next(c, &w), 1);
    assert_int_equal(w.power_mw, INT32_MAX); /* the edge itself reads back */
    assert_int_equal(mw_run_window_next(c, &w), -1);
    assert_non_null(
        strstr(mw_store_error(s), "power_mw = 9223372036854775807 is out of its range"));
    assert_int_equal(mw_store_bad_input(s), 1);
    mw_run_close(c);
    c = mw_run_powers(s, -1, MW_RUN_BY_WINDOW);
    mw_run_power p;
    int rc;
    while ((rc = mw_run_power_next(c, &p)) == 1)
        assert_true(p.power_mw != -1); /* what truncation made of INT64_MAX */
    assert_int_equal(rc, -1);
    mw_run_close(c);
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

    s = forged("UPDATE windows SET v2 = 2147483648 WHERE channel0 = 1 AND seq = 2");
    c = mw_run_named_windows(s);
    const char *name;
    while ((rc = mw_run_named_window_next(c, &w, &name)) == 1)
        ;
    assert_int_equal(rc, -1);
    assert_non_null(strstr(mw_store_error(s), "vrms_mv = 2147483648"));
    assert_int_equal(mw_store_bad_input(s), 1);
    mw_run_close(c);
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void not_a_database_is_bad_input(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-run-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char db[128], err[256];
    snprintf(db, sizeof db, "%s/trace.db", tmpdir);
    FILE *f = fopen(db, "w");
    assert_non_null(f);
    fputs("hello, not a database\n", f);
    fclose(f);
    errno = 0;
    assert_null(mw_store_open(tmpdir, err, sizeof err));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(err, "file is not a database"));
    assert_int_equal(mw_store_bad_input(NULL), 0);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(channels_in_order),    cmocka_unit_test(windows_by_time_and_by_window),
        cmocka_unit_test(phase_filters),        cmocka_unit_test(gaps_meta_counts),
        cmocka_unit_test(out_of_range_refused), cmocka_unit_test(not_a_database_is_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
