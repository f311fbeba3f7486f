/* Exact window totals (models/window_totals.c) against figures worked by hand:
 *  - 100 W windows of 0.25 s from 0.5 s, seq 0..4 with seq 2 lost: 4 windows hold 100 J
 *    (10^14 pJ) over 1 s, mean 100 W; one hole of 0.25 s (over the 1 ms threshold); the
 *    meter's counter (25 J per window, lost one included) counts 125 J from the first
 *    window's start to the last one's end;
 *  - the mean rounds half away from zero: 5/2 -> 3, -5/2 -> -3, 4/3 -> 1, 5/3 -> 2;
 *  - no time covered: no mean; no windows: no meter energy;
 *  - times 292 years apart wrap in the covered time but the energy is exact;
 *  - a named channel's windows read from a run written through the store's API, by time
 *    (written out of order): 3 W, 1 W, 2 W of 0.5 s = 3 J over 1.5 s; another channel's
 *    windows left out; an unknown name lists the run's channels, those that fit. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_store.h"
#include "window_totals.h"

#define S 1000000000LL /* 1 s in ns */

static void hundred_watts_one_window_lost(void **state)
{
    mw_window_totals t = {0};
    for (int seq = 0; seq <= 4; seq++) {
        if (seq == 2) continue; /* lost on the way: the meter still counted it */
        int64_t t0 = S / 2 + seq * S / 4;
        mw_window_totals_add(&t, t0, t0 + S / 4, 100000, 25000 * (seq + 1), 250000, 1000000);
    }
    assert_int_equal(t.samples, 4);
    assert_true(t.window_pj == (__int128)100 * 1000000000000LL); /* 100 J */
    assert_int_equal(t.covered_ns, S);
    assert_int_equal(t.holes, 1);
    assert_int_equal(t.hole_ns, S / 4);
    __int128 mean;
    assert_int_equal(mw_window_totals_mean_mw(&t, &mean), 0);
    assert_true(mean == 100000);
    assert_true(mw_window_totals_meter_pj(&t) == (__int128)125 * 1000000000000LL); /* 125 J */
}

static void holes_below_the_threshold_are_not_counted(void **state)
{
    mw_window_totals t = {0};
    mw_window_totals_add(&t, 0, 100, 1, 0, 0, 10);
    mw_window_totals_add(&t, 110, 200, 1, 0, 0, 10); /* 10 ns apart: not more than 10 */
    mw_window_totals_add(&t, 211, 300, 1, 0, 0, 10); /* 11 ns */
    assert_int_equal(t.holes, 1);
    assert_int_equal(t.hole_ns, 11);
}

static __int128 mean_of(int64_t pj, int64_t ns)
{
    mw_window_totals t = {.window_pj = pj, .covered_ns = ns};
    __int128 m = 0;
    assert_int_equal(mw_window_totals_mean_mw(&t, &m), 0);
    return m;
}

static void mean_rounds_half_away_from_zero(void **state)
{
    assert_true(mean_of(5, 2) == 3);
    assert_true(mean_of(-5, 2) == -3);
    assert_true(mean_of(4, 3) == 1);
    assert_true(mean_of(5, 3) == 2);
    assert_true(mean_of(-4, 3) == -1);
    mw_window_totals none = {0};
    __int128 m;
    assert_int_equal(mw_window_totals_mean_mw(&none, &m), -1);
    assert_true(mw_window_totals_meter_pj(&none) == 0);
}

static void damaged_times_wrap(void **state)
{
    mw_window_totals t = {0};
    mw_window_totals_add(&t, INT64_MAX - 10, INT64_MIN + 10, 1, 0, 0, 0);
    assert_int_equal(t.covered_ns, 21); /* 2^64 - 21 ns back read as +21 */
    assert_true(t.window_pj == -((__int128)1 << 64) + 21);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void read_a_named_channel(void **state)
{
    char tmp[64] = "/tmp/mw-wtotals-XXXXXX", dir[128], err[256];
    assert_non_null(mkdtemp(tmp));
    snprintf(dir, sizeof dir, "%s/r", tmp);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "alpha", NULL, NULL), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "beta", NULL, NULL), 0);
    static const int order[] = {2, 0, 1}, mw[] = {3000, 1000, 2000};
    for (int k = 0; k < 3; k++) {
        int i = order[k];
        for (int ch = 1; ch <= 2; ch++) {
            mw_store_sample x = {.channel = ch,
                                 .seq = (uint32_t)i,
                                 .t0_ns = i * S / 2,
                                 .t1_ns = (i + 1) * S / 2,
                                 .power_mw = ch == 2 ? mw[i] : 99};
            assert_int_equal(mw_store_sample_add(s, &x), 0);
        }
    }
    mw_store_close(s);
    s = mw_store_open(dir, err, sizeof err);
    assert_non_null(s);
    double *p;
    mw_window_totals t;
    char names[64];
    assert_int_equal(mw_window_totals_read_channel(s, "beta", &p, &t, names, sizeof names), 0);
    assert_int_equal(t.samples, 3);
    assert_true(p[0] == 3 && p[1] == 1 && p[2] == 2);
    assert_true(t.window_pj == (__int128)3 * 1000000000000LL);
    assert_int_equal(t.covered_ns, 3 * S / 2);
    assert_int_equal(t.holes, 0);
    free(p);
    assert_int_equal(mw_window_totals_read_channel(s, "gamma", &p, &t, names, sizeof names), -2);
    assert_string_equal(names, "alpha, beta");
    assert_null(p);
    assert_int_equal(mw_window_totals_read_channel(s, "gamma", &p, &t, names, 9), -2);
    assert_string_equal(names, "alpha"); /* ", beta" does not fit */
    mw_store_close(s);
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hundred_watts_one_window_lost),
        cmocka_unit_test(holes_below_the_threshold_are_not_counted),
        cmocka_unit_test(mean_rounds_half_away_from_zero),
        cmocka_unit_test(damaged_times_wrap),
        cmocka_unit_test(read_a_named_channel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
