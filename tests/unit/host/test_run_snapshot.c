/* The run store's read API additions for mw export, ls, show and the other readers
 * (host/run.c, mw_run.h, "one snapshot" section), on a run written through the write API:
 * a snapshot keeps seeing the run as it was while a second writer commits phases, and sees
 * them once ended; phases by start, rank, thread and insertion against the hand-sorted
 * order; windows with their channel's name, the channel number for a channel the channels
 * table lacks, every column kept; a NULL meta value stays NULL; a plain windows cursor is
 * not a named one; the first recorded counter of a name is the first inserted, not the
 * earliest. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_run.h"
#include "mw_store.h"

static char tmpdir[64], rundir[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static mw_store *phase_writer(void)
{
    char err[256];
    mw_store *w = mw_store_open_write(rundir, err, sizeof err);
    assert_non_null(w);
    return w;
}

/* A run with channels 1 "node0" and 2 "switch", windows of channels 1, 2 and 9 (no row in
 * channels), phases of equal starts in scrambled rank and thread order, and meta. Closed:
 * the tests open it as readers do. */
static void write_run(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-runsnap-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    snprintf(rundir, sizeof rundir, "%s/r", tmpdir);
    char err[256];
    mw_store *s = mw_store_create(rundir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "h1", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, NULL), 0);
    static const int chans[] = {9, 2, 1};
    for (int seq = 1; seq >= 0; seq--)
        for (int k = 0; k < 3; k++) {
            mw_store_sample x = {.channel = chans[k],
                                 .segment = 1 - seq, /* segment 1 holds seq 0 */
                                 .seq = (uint32_t)seq,
                                 .meter_t0_us = 10,
                                 .meter_t1_us = 20,
                                 .t0_ns = 100 * seq,
                                 .t1_ns = 100 * seq + 50,
                                 .uncertainty_ns = 3,
                                 .power_mw = -7 * chans[k],
                                 .vrms_mv = 230000,
                                 .irms_ua = 12,
                                 .pf_milli = -500,
                                 .meter_energy_mj = INT64_MIN + 1,
                                 .energy_mj = 99,
                                 .flags = 0x80000000u};
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    /* inserted in this order; sorted by (start, rank, thread, insertion) they read
     * 50/0/0 "a", 50/0/0 "d", 50/0/2 "e", 50/1/0 "b", 60/-1/0 "c" (with the counters and
     * "other" below: "other" at 5 and a counter at 10 before, a counter at 80 after) */
    const mw_store_phase ph[] = {
        {1, "h1", 0, "user", "b", 50, 70, 0, 1, -1}, {-1, "", 0, "mw", "c", 60, 60, 0, 0, -1},
        {0, "h1", 0, "user", "a", 50, 51, 0, 1, -1}, {0, "h1", 2, "omp", "e", 50, 52, 0, 1, -1},
        {0, "h1", 0, "mpi", "d", 50, 55, 8, 1, 1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    const mw_store_phase counters[] = {
        {0, "h1", 0, "counter", "eeg version", 80, 80, 3, 1, -1},
        {1, "h1", 0, "counter", "eeg version", 10, 10, 2, 1, -1},
        {1, "h1", 0, "user", "other", 5, 6, 9, 1, -1},
    };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(mw_store_phase_add(s, &counters[i]), 0);
    assert_int_equal(mw_store_meta_set(s, "empty", NULL), 0);
    assert_int_equal(mw_store_meta_set(s, "full", "v"), 0);
    mw_store_close(s);
}

static mw_store *reader(void)
{
    char err[256];
    mw_store *s = mw_store_open(rundir, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void done(mw_store *s)
{
    mw_store_close(s);
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int64_t phase_count(mw_store *s)
{
    mw_run_counts n;
    assert_int_equal(mw_run_count(s, &n), 0);
    return n.phases;
}

static void snapshot_holds_while_a_writer_commits(void **state)
{
    write_run();
    mw_store *s = reader();
    assert_int_equal(mw_run_snapshot_begin(s), 0);
    assert_int_equal(phase_count(s), 8);
    mw_store *w = phase_writer();
    const mw_store_phase late = {0, "h1", 0, "user", "late", 900, 950, 0, 1, -1};
    assert_int_equal(mw_store_phase_add(w, &late), 0);
    assert_int_equal(mw_store_commit(w), 0);
    assert_int_equal(phase_count(s), 8); /* still the snapshot */
    assert_int_equal(mw_run_snapshot_end(s), 0);
    assert_int_equal(phase_count(s), 9); /* a new read sees the commit */
    mw_store_close(w);
    done(s);
}

static void phases_by_start_rank_thread(void **state)
{
    write_run();
    mw_store *s = reader();
    mw_run_cursor *c = mw_run_phases_by_start_rank(s);
    assert_non_null(c);
    static const char *const want[] = {"other", "eeg version", "a", "d",
                                       "e",     "b",           "c", "eeg version"};
    mw_store_phase p;
    for (int i = 0; i < 8; i++) {
        assert_int_equal(mw_run_phase_next(c, &p), 1);
        assert_string_equal(p.name, want[i]);
    }
    assert_int_equal(mw_run_phase_next(c, &p), 0);
    mw_run_close(c);
    c = mw_run_phases_by_start_rank(s); /* every column of the fourth row */
    for (int i = 0; i < 4; i++)
        assert_int_equal(mw_run_phase_next(c, &p), 1);
    assert_string_equal(p.kind, "mpi");
    assert_int_equal(p.end_ns, 55);
    assert_int_equal(p.bytes, 8);
    assert_int_equal(p.peer, 1);
    assert_int_equal(p.pid, 1);
    mw_run_close(c);
    done(s);
}

static void windows_with_channel_names(void **state)
{
    write_run();
    mw_store *s = reader();
    mw_run_cursor *c = mw_run_named_windows(s);
    assert_non_null(c);
    /* by segment, seq, channel: segment 0 holds seq 1, segment 1 seq 0 */
    static const char *const want[] = {"node0", "switch", "9", "node0", "switch", "9"};
    mw_store_sample w;
    const char *name;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(mw_run_named_window_next(c, &w, &name), 1);
        assert_string_equal(name, want[i]);
        assert_int_equal(w.segment, i / 3);
        assert_int_equal(w.seq, 1 - i / 3);
        assert_int_equal(w.power_mw, -7 * w.channel);
        assert_int_equal(w.pf_milli, -500);
        assert_true(w.meter_energy_mj == INT64_MIN + 1);
        assert_int_equal(w.flags, 0x80000000u);
        assert_int_equal(w.t1_ns, 100 * w.seq + 50);
    }
    assert_int_equal(mw_run_named_window_next(c, &w, &name), 0);
    mw_run_close(c);
    c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW); /* not a named cursor */
    assert_int_equal(mw_run_named_window_next(c, &w, &name), -1);
    mw_run_close(c);
    done(s);
}

static void first_counter(void **state)
{
    write_run();
    mw_store *s = reader();
    int64_t v = 0;
    assert_int_equal(mw_run_counter_first(s, "eeg version", &v), 1);
    assert_int_equal(v, 3);
    assert_int_equal(mw_run_counter_first(s, "other", &v), 0); /* a user phase, not a counter */
    assert_int_equal(mw_run_counter_first(s, "x'; DROP TABLE phases; --", &v), 0);
    assert_int_equal(phase_count(s), 8);
    done(s);
}

static void null_meta_value(void **state)
{
    write_run();
    mw_store *s = reader();
    mw_run_cursor *c = mw_run_meta(s);
    const char *k, *v;
    int seen = 0;
    while (mw_run_meta_next_nullable(c, &k, &v) == 1) {
        if (!strcmp(k, "empty")) assert_null(v), seen++;
        if (!strcmp(k, "full")) assert_string_equal(v, "v"), seen++;
    }
    assert_int_equal(seen, 2);
    mw_run_close(c);
    c = mw_run_meta(s); /* the plain form gives "" */
    while (mw_run_meta_next(c, &k, &v) == 1)
        if (!strcmp(k, "empty")) assert_string_equal(v, "");
    mw_run_close(c);
    done(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshot_holds_while_a_writer_commits),
        cmocka_unit_test(phases_by_start_rank_thread),
        cmocka_unit_test(windows_with_channel_names),
        cmocka_unit_test(null_meta_value),
        cmocka_unit_test(first_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
