/* energy_store (models/energy_store.c): a channel's windows from a run store through the
 * run store's cursors, in time order whatever order they were written in, nothing for a
 * channel without windows; a recorded command's wall time and every channel's energy over
 * it, on a run whose answer is known by hand (100 W and 50 W over a 2 s command: 300 J;
 * the windows' edges cut pro rata); a run without the command's span and a missing run are
 * refused with the run named. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>

#include "energy_store.h"
#include "mw_store.h"

#define S(x) ((int64_t)((x)*1e9))
#define B ((int64_t)1700000000000000000)

static char tmp[64], run[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* n1 (channel 1) at 100 W and switch (channel 2) at 50 W, 1 s windows over [B, B + 4 s),
 * written last window first; channel 3 with no windows; the command over [0.5 s, 2.5 s)
 * unless no_cmd */
static void make_run(int no_cmd)
{
    snprintf(tmp, sizeof tmp, "/tmp/mw-estore-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    snprintf(run, sizeof run, "%s/run", tmp);
    char err[256], v[32];
    mw_store *s = mw_store_create(run, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "n1", "h1", NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 3, "spare", NULL, NULL), 0);
    for (int k = 3; k >= 0; k--)
        for (int c = 1; c <= 2; c++) {
            mw_store_sample x = {.channel = c,
                                 .seq = (uint32_t)k,
                                 .t0_ns = B + S(k),
                                 .t1_ns = B + S(k + 1),
                                 .power_mw = c == 1 ? 100000 : 50000};
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    if (!no_cmd) {
        snprintf(v, sizeof v, "%lld", (long long)(B + S(0.5)));
        assert_int_equal(mw_store_meta_set(s, "cmd_start_ns", v), 0);
        snprintf(v, sizeof v, "%lld", (long long)(B + S(2.5)));
        assert_int_equal(mw_store_meta_set(s, "cmd_end_ns", v), 0);
    }
    mw_store_close(s);
}

static void cleanup(void)
{
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void windows_in_time_order(void **state)
{
    make_run(0);
    char err[256];
    mw_store *s = mw_store_open(run, err, sizeof err);
    assert_non_null(s);
    mw_energy_window *w;
    size_t n;
    assert_int_equal(mw_energy_store_windows(s, 1, &w, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    for (size_t k = 0; k < n; k++) {
        assert_true(w[k].t0_ns == B + S(k));
        assert_true(w[k].t1_ns == B + S(k + 1));
        assert_int_equal(w[k].power_mw, 100000);
    }
    free(w);
    assert_int_equal(mw_energy_store_windows(s, 3, &w, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);
    assert_null(w);
    mw_store_close(s);
    cleanup();
}

static void command_time_and_energy(void **state)
{
    make_run(0);
    char err[256];
    double t = -1, e = -1;
    assert_int_equal(mw_energy_store_command(run, &t, &e, err, sizeof err), 0);
    assert_true(fabs(t - 2.0) < 1e-12);
    assert_true(fabs(e - 300.0) < 1e-9); /* 100 W x 2 s + 50 W x 2 s */
    cleanup();
}

static void command_refused(void **state)
{
    make_run(1);
    char err[512], want[256];
    double t, e;
    assert_int_equal(mw_energy_store_command(run, &t, &e, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: no command span (meta cmd_start_ns, cmd_end_ns)", run);
    assert_string_equal(err, want);
    cleanup();
    assert_int_equal(mw_energy_store_command(run, &t, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, run));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(windows_in_time_order),
        cmocka_unit_test(command_time_and_energy),
        cmocka_unit_test(command_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
