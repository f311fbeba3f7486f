/* Window timing of the real firmware, for every rate: over >= 40 windows the mean window
 * length equals the nominal period in crystal time within one conversion (104 us), window
 * boundaries never drift from k * period by more than one sample set, consecutive windows
 * chain without gaps, and the meter's time stamps agree with the crystal cycles the board
 * actually ran (independently known to the simulated board), also with a +100 ppm crystal
 * where true time and crystal time differ. */
#include <math.h>

#include "harness.h"

static void check_rate(int hz, double ppm)
{
    h_board *h = h_open();
    mw_sim_set_crystal_ppm(h->sim, ppm);
    char cmd[32];
    snprintf(cmd, sizeof cmd, "RATE %d", hz);
    assert_string_equal(h_cmd(h, cmd), "OK,RATE");
    h_forget(h);
    h_run_windows(h, 42, 42.0 / hz + 2.0);
    /* windows of the new schedule: the first one after RATE carries the FIRST flag */
    int first = -1;
    for (int i = 0; i < h->nwin; i++)
        if (h->win[i].flags & MW_FLAG_FIRST) first = i;
    assert_true(first >= 0 && first <= 1);
    const mw_proto_window *w0 = &h->win[first];
    assert_int_equal(w0->seq, 0);
    assert_int_equal(w0->t0_us, 0);
    uint64_t period_us = 1000000u / (unsigned)hz;
    uint64_t set_us = 104u * (uint64_t)(w0->nchan + 1);
    int n = h->nwin - first;
    assert_true(n >= 40);
    for (int i = first; i < h->nwin; i++) {
        const mw_proto_window *w = &h->win[i];
        int k = i - first + 1;                       /* windows since the start of the schedule */
        assert_int_equal(w->seq, (uint32_t)(k - 1)); /* no window lost */
        if (i > first) assert_int_equal(w->t0_us, h->win[i - 1].t1_us); /* no gap, no overlap */
        assert_int_equal(w->t1_us % 104, 0);
        /* no cumulative drift: the boundary is the first set boundary at or after the
         * conversion in which k*P falls */
        int64_t dev = (int64_t)w->t1_us - (int64_t)(k * period_us);
        if (!(dev > -104 && dev < (int64_t)set_us))
            fail_msg("window %d ends %lld us from k*P", k, (long long)dev);
        /* meter time vs crystal cycles actually executed by the board */
        double crystal_s = (mw_sim_adc_sample_time(h->sim, w->t1_us / 104) -
                            mw_sim_adc_sample_time(h->sim, w->t0_us / 104)) *
                           (1.0 + ppm * 1e-6);
        assert_true(fabs(crystal_s - (w->t1_us - w->t0_us) * 1e-6) < 1e-9);
    }
    const mw_proto_window *wl = &h->win[h->nwin - 1];
    double mean_us = (double)(wl->t1_us - w0->t0_us) / n;
    print_message("%2d Hz (%+.0f ppm): %d windows, mean period %.3f us (nominal %llu us)\n", hz,
                  ppm, n, mean_us, (unsigned long long)period_us);
    assert_true(fabs(mean_us - (double)period_us) <= 104.0);
    h_close(h);
}

static void rate_1(void **s)
{
    check_rate(1, 0);
}
static void rate_2(void **s)
{
    check_rate(2, 0);
}
static void rate_4(void **s)
{
    check_rate(4, 0);
}
static void rate_5(void **s)
{
    check_rate(5, 0);
}
static void rate_8(void **s)
{
    check_rate(8, 0);
}
static void rate_10(void **s)
{
    check_rate(10, 0);
}
static void rate_4_fast_crystal(void **s)
{
    check_rate(4, 100);
}

static void bad_rate_rejected(void **s)
{
    h_board *h = h_open();
    assert_string_equal(h_cmd(h, "RATE 3"), "E,2,bad argument");
    assert_string_equal(h_cmd(h, "RATE"), "E,2,bad argument");
    h_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rate_1),
        cmocka_unit_test(rate_2),
        cmocka_unit_test(rate_4),
        cmocka_unit_test(rate_5),
        cmocka_unit_test(rate_8),
        cmocka_unit_test(rate_10),
        cmocka_unit_test(rate_4_fast_crystal),
        cmocka_unit_test(bad_rate_rejected),
    };
    return cmocka_run_group_tests_name("timing", tests, NULL, NULL);
}
