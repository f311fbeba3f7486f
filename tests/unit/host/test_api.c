/* libmegawatt's public reader API (host/api.c, megawatt.h) on a run written through the
 * write API with hand-chosen rows: channels in channel order (a NULL host stays NULL); a
 * channel's windows by time, every public field equal to what was written, and all channels'
 * windows; the energy Σ power_mw·(t1_ns − t0_ns) of the written rows; phases of every kind by
 * start and of one kind, with a kind that looks like SQL being data; a cursor handed to the
 * wrong next function fails with a message, never reads; NULL arguments fail without a
 * crash; a missing run, an empty name and a file that is not a database are refused with a
 * message naming it; start_ns; the version. Under ASan too (nothing leaks). */
#include "../unit.h"

#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "megawatt.h"
#include "mw_store.h"

static char tmpdir[64];
static char rundir[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* channel 2 "switch" (no host), channel 1 "node1" on h1; windows 0..2 of both, written out
 * of time order; three phases */
static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-api-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(rundir, sizeof rundir, "%s/r", tmpdir);
    char err[256];
    mw_store *s = mw_store_create(rundir, 0, err, sizeof err);
    if (!s) return -1;
    int bad = mw_store_channel_add(s, 2, "switch", NULL, "A2") ||
              mw_store_channel_add(s, 1, "node1", "h1", NULL);
    for (int seq = 2; seq >= 0; seq--)
        for (int ch = 1; ch <= 2; ch++) {
            mw_store_sample x = {.channel = ch, .segment = 0, .seq = (uint32_t)seq,
                                 .meter_t0_us = 250000u * seq, .meter_t1_us = 250000u * (seq + 1),
                                 .t0_ns = 1000000000 + 250000000LL * seq,
                                 .t1_ns = 1250000000 + 250000000LL * seq, .uncertainty_ns = 7,
                                 .power_mw = 1000 * ch + seq, .vrms_mv = 230000, .irms_ua = -5,
                                 .pf_milli = 999, .meter_energy_mj = 5, .energy_mj = 100 + seq,
                                 .flags = MEGAWATT_WINDOW_CLIP | 0x100u};
            bad |= mw_store_sample_add(s, &x);
        }
    const mw_store_phase ph[] = {
        {0, "h1", 0, "user", "solve", 1300000000, 1400000000, 0, 11, -1},
        {1, "h1", 2, "comm", "MPI_Send", 1100000000, 1200000000, 64, 12, 0},
        {-1, "h1", 0, "mw", "command", 1000000000, 1750000000, 0, 10, -1},
    };
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++) bad |= mw_store_phase_add(s, &ph[i]);
    mw_store_close(s);
    return bad ? -1 : 0;
}

static int teardown(void **state)
{
    return nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static megawatt_run *opened(void)
{
    char err[256] = "x";
    megawatt_run *r = megawatt_open(rundir, err, sizeof err);
    assert_non_null(r);
    assert_string_equal(megawatt_error(r), "");
    return r;
}

static void channels_in_order(void **state)
{
    megawatt_run *r = opened();
    megawatt_cursor *c = megawatt_channels(r);
    megawatt_channel ch;
    assert_int_equal(megawatt_channel_next(c, &ch), 1);
    assert_int_equal(ch.channel, 1);
    assert_string_equal(ch.name, "node1");
    assert_string_equal(ch.host, "h1");
    assert_int_equal(megawatt_channel_next(c, &ch), 1);
    assert_int_equal(ch.channel, 2);
    assert_string_equal(ch.name, "switch");
    assert_null(ch.host);
    assert_int_equal(megawatt_channel_next(c, &ch), 0);
    megawatt_cursor_close(c);
    megawatt_close(r);
}

static void windows_as_written(void **state)
{
    megawatt_run *r = opened();
    megawatt_cursor *c = megawatt_windows(r, 2);
    megawatt_window w;
    double pj = 0;
    for (int seq = 0; seq < 3; seq++) {
        assert_int_equal(megawatt_window_next(c, &w), 1);
        assert_int_equal(w.channel, 2);
        assert_int_equal(w.t0_ns, 1000000000 + 250000000LL * seq);
        assert_int_equal(w.t1_ns, 1250000000 + 250000000LL * seq);
        assert_int_equal(w.uncertainty_ns, 7);
        assert_int_equal(w.power_mw, 2000 + seq);
        assert_int_equal(w.vrms_mv, 230000);
        assert_int_equal(w.irms_ua, -5);
        assert_int_equal(w.pf_milli, 999);
        assert_int_equal(w.energy_mj, 100 + seq);
        assert_int_equal(w.flags, MEGAWATT_WINDOW_CLIP | 0x100u);
        pj += (double)w.power_mw * (double)(w.t1_ns - w.t0_ns);
    }
    assert_int_equal(megawatt_window_next(c, &w), 0);
    /* (2000 + 2001 + 2002) mW for 0.25 s each: 1500.75 mJ (mW * ns * 1e-9 = mJ) */
    assert_true(pj * 1e-9 > 1500.749 && pj * 1e-9 < 1500.751);
    megawatt_cursor_close(c);
    int n = 0;
    c = megawatt_windows(r, -1);
    while (megawatt_window_next(c, &w) == 1) n++;
    assert_int_equal(n, 6);
    megawatt_cursor_close(c);
    c = megawatt_windows(r, 9); /* no such channel: no windows */
    assert_int_equal(megawatt_window_next(c, &w), 0);
    megawatt_cursor_close(c);
    int64_t t0 = 0;
    assert_int_equal(megawatt_start_ns(r, &t0), 0);
    assert_int_equal(t0, 1000000000);
    megawatt_close(r);
}

static void phases_by_start_and_kind(void **state)
{
    megawatt_run *r = opened();
    megawatt_cursor *c = megawatt_phases(r, NULL);
    megawatt_phase p;
    const char *names[] = {"command", "MPI_Send", "solve"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(megawatt_phase_next(c, &p), 1);
        assert_string_equal(p.name, names[i]);
    }
    assert_int_equal(megawatt_phase_next(c, &p), 0);
    megawatt_cursor_close(c);
    c = megawatt_phases(r, "comm");
    assert_int_equal(megawatt_phase_next(c, &p), 1);
    assert_string_equal(p.kind, "comm");
    assert_string_equal(p.host, "h1");
    assert_int_equal(p.rank, 1);
    assert_int_equal(p.thread, 2);
    assert_int_equal(p.start_ns, 1100000000);
    assert_int_equal(p.end_ns, 1200000000);
    assert_int_equal(p.bytes, 64);
    assert_int_equal(megawatt_phase_next(c, &p), 0);
    megawatt_cursor_close(c);
    c = megawatt_phases(r, "x' OR '1'='1");
    assert_int_equal(megawatt_phase_next(c, &p), 0);
    megawatt_cursor_close(c);
    megawatt_close(r);
}

static void misuse_fails_cleanly(void **state)
{
    megawatt_run *r = opened();
    megawatt_cursor *c = megawatt_channels(r);
    megawatt_window w;
    megawatt_phase p;
    assert_int_equal(megawatt_window_next(c, &w), -1);
    assert_non_null(strstr(megawatt_error(r), "megawatt_window_next: this cursor walks"));
    assert_int_equal(megawatt_phase_next(c, &p), -1);
    assert_int_equal(megawatt_channel_next(c, NULL), -1);
    assert_int_equal(megawatt_window_next(NULL, &w), -1);
    assert_null(megawatt_channels(NULL));
    assert_null(megawatt_windows(NULL, 1));
    assert_null(megawatt_phases(NULL, "user"));
    assert_int_equal(megawatt_start_ns(NULL, NULL), -1);
    megawatt_cursor_close(c);
    megawatt_cursor_close(NULL);
    megawatt_close(r);
    megawatt_close(NULL);
    assert_string_equal(megawatt_version(), MW_VERSION);
}

static void bad_runs_refused(void **state)
{
    char err[512] = "";
    char path[192];
    snprintf(path, sizeof path, "%s/nope", tmpdir);
    assert_null(megawatt_open(path, err, sizeof err));
    assert_non_null(strstr(err, "nope"));
    assert_null(megawatt_open("", err, sizeof err));
    assert_string_equal(err, "no run directory given");
    assert_null(megawatt_open(NULL, NULL, 0));
    /* a trace.db that is text */
    snprintf(path, sizeof path, "%s/text", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    char db[256];
    snprintf(db, sizeof db, "%s/trace.db", path);
    FILE *f = fopen(db, "w");
    assert_non_null(f);
    for (int i = 0; i < 200; i++) fputs("not a database, not at all\n", f);
    fclose(f);
    assert_null(megawatt_open(path, err, sizeof err));
    assert_non_null(strstr(err, db));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(channels_in_order),
        cmocka_unit_test(windows_as_written),
        cmocka_unit_test(phases_by_start_and_kind),
        cmocka_unit_test(misuse_fails_cleanly),
        cmocka_unit_test(bad_runs_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
