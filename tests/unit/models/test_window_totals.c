/* Exact window totals (models/window_totals.c) against figures worked by hand:
 *  - 100 W windows of 0.25 s from 0.5 s, seq 0..4 with seq 2 lost: 4 windows hold 100 J
 *    (10^14 pJ) over 1 s, mean 100 W; one hole of 0.25 s (over the 1 ms threshold); the
 *    meter's counter (25 J per window, lost one included) counts 125 J from the first
 *    window's start to the last one's end;
 *  - the mean rounds half away from zero: 5/2 -> 3, -5/2 -> -3, 4/3 -> 1, 5/3 -> 2;
 *  - no time covered: no mean; no windows: no meter energy;
 *  - times 292 years apart wrap in the covered time but the energy is exact. */
#include "../unit.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hundred_watts_one_window_lost),
        cmocka_unit_test(holes_below_the_threshold_are_not_counted),
        cmocka_unit_test(mean_rounds_half_away_from_zero),
        cmocka_unit_test(damaged_times_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
