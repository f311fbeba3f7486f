/* The fundamental's phase (firmware/portable/fund.h): the ISR's own per-sample code,
 * mw_fund_sample, driven on the host with the voltage samples of the exact sample instants
 * (set s of m conversions at s m 104 us, ADC quantisation, 8 % THD, optional Gaussian noise
 * from a fixed seed), windows of the firmware's length, the reference set from the previous
 * window's result as the main loop does; the truth is the synthetic mains' own frequency. */
#include "../unit.h"

#include "afe.h"
#include "fund.h"
#include "sums.h"

/* Every table entry against the C library's sine. */
static void table(void **s)
{
    for (unsigned k = 0; k < MW_FUND_TAB; k++)
        assert_int_equal(mw_fund_sin[k], (int)lround(32767.0 * sin(2 * M_PI * k / MW_FUND_TAB)));
}

static unsigned long rng = 12345;
static double gauss(void) /* Box-Muller on a fixed LCG: the same noise on every run */
{
    double u[2];
    for (int j = 0; j < 2; j++) {
        rng = rng * 6364136223846793005ul + 1442695040888963407ul;
        u[j] = ((double)(rng >> 11) + 1.0) / 9007199254740994.0;
    }
    return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* 230 V mains at hz with issue 20's 8 % THD (3rd 5 %, 5th 5 %, 7th 3.6 %) at phases ph,
 * through the voltage input (afe.h): the ADC code - 512 at time t. */
static int16_t sample(double hz, const double *ph, double t, double noise_lsb)
{
    static const double a[8] = {0, 1, 0, 0.05, 0, 0.05, 0, 0.036};
    double x = 2 * M_PI * hz * t, v = 0;
    for (int h = 1; h < 8; h += 2)
        v += a[h] * sin(h * x + (h > 1 ? ph[h / 2 - 1] : 0));
    double pin = MW_AFE_BIAS_V + 230 * M_SQRT2 * v / MW_AFE_V_RATIO;
    double code = floor(pin * 1024 / MW_AFE_VREF_V + noise_lsb * gauss());
    return (int16_t)(fmin(fmax(code, 0), 1023) - 512);
}

/* The worst |f - hz| (Hz) over windows 2..nwin - 1 at period_us, starting from f0. */
static double run(double hz, int nchan_i, const double *ph, uint32_t period_us, double f0,
                  double noise_lsb, int nwin)
{
    int m = MW_SET_CONV(nchan_i);
    mw_fund st = {0};
    double f_last = f0, worst = 0;
    uint64_t conv = 0, end = 0;
    for (int w = 0; w < nwin; w++) {
        mw_fund_setup(&st.ref, (float)f_last, (uint8_t)nchan_i, period_us);
        st.hp = 0;
        int32_t z[4] = {0};
        end += period_us / MW_CONV_US; /* the window ends at the first set at or after */
        uint16_t s = 0;
        for (; conv < end; conv += (uint64_t)m, s++)
            mw_fund_sample(&st, z, s,
                           sample(hz, ph, (double)conv * MW_CONV_US * 1e-6 + 12e-6, noise_lsb));
        float f;
        assert_true(mw_fund_freq(&st.ref, z, s, (uint8_t)m, &f));
        if (w >= 2) worst = fmax(worst, fabs(f - hz));
        f_last = f;
    }
    return worst;
}

/* 45-65 Hz, 1 V + 1, 5, 15 I, harmonics in phase, opposite, mixed, 250 ms windows, no
 * noise: within 1.5 mHz (measured 1.15; the crossings: up to 4 and 11 mHz, fund.h); with
 * 0.5 LSB of noise (this seed) within 2 mHz (measured 1.88). */
static void thd8(void **s)
{
    static const double hz[] = {45.0, 50.02, 59.97, 65.0};
    static const double phs[3][3] = {{0, 0, 0}, {M_PI, M_PI, M_PI}, {0, M_PI, M_PI / 2}};
    static const int nch[] = {1, 5, 15};
    double worst[2] = {0, 0};
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
            for (int p = 0; p < 3; p++)
                for (int n = 0; n < 2; n++) {
                    double e = run(hz[i], nch[c], phs[p], 250000, hz[i] + 0.1, n * 0.5, 40);
                    worst[n] = fmax(worst[n], e);
                }
    print_message("250 ms windows: worst %.3f mHz without noise, %.3f mHz with 0.5 LSB\n",
                  worst[0] * 1e3, worst[1] * 1e3);
    assert_true(worst[0] < 1.5e-3);
    assert_true(worst[1] < 2.0e-3);
}

/* A reference off by up to 1 Hz (a start, a step of the mains) still gives the frequency:
 * the phase advance between the halves stays within half a cycle up to 4 Hz at 250 ms. */
static void reference_off(void **s)
{
    static const double ph[3] = {M_PI, M_PI, M_PI};
    for (double d = -1.0; d <= 1.0; d += 0.5) {
        int m = MW_SET_CONV(5);
        mw_fund st = {0};
        mw_fund_setup(&st.ref, (float)(50.0 + d), 5, 250000);
        int32_t z[4] = {0};
        uint16_t n = (uint16_t)(250000 / (m * MW_CONV_US));
        for (uint16_t k = 0; k < n; k++)
            mw_fund_sample(&st, z, k, sample(50.0, ph, (double)k * m * MW_CONV_US * 1e-6, 0));
        float f;
        assert_true(mw_fund_freq(&st.ref, z, n, (uint8_t)m, &f));
        assert_true(fabs(f - 50.0) < 2e-3);
    }
}

/* When a half would hold fewer than two cycles, or the window is shorter than its two
 * halves, the phase is not used (h = 0, or mw_fund_freq returns 0). */
static void limits(void **s)
{
    mw_fund_ref r;
    mw_fund_setup(&r, 50.0f, 15, 100000); /* 56 sets: halves of 27 sets, 2.4 cycles */
    assert_int_not_equal(r.h, 0);
    mw_fund_setup(&r, 45.0f, 15, 50000); /* halves under 2 cycles */
    assert_int_equal(r.h, 0);
    mw_fund_setup(&r, 0.0f, 5, 250000);
    assert_int_equal(r.h, 0);
    mw_fund_setup(&r, 50.0f, 5, 250000);
    int32_t z[4] = {1000, 0, 1000, 0};
    float f;
    assert_false(mw_fund_freq(&r, z, (uint16_t)(2 * r.h - 1), 7, &f)); /* window too short */
    assert_true(mw_fund_freq(&r, z, (uint16_t)(2 * r.h), 7, &f));
    int32_t zero[4] = {0};
    assert_false(mw_fund_freq(&r, zero, (uint16_t)(2 * r.h), 7, &f)); /* no mains */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(table), cmocka_unit_test(thd8),
                                       cmocka_unit_test(reference_off), cmocka_unit_test(limits)};
    return cmocka_run_group_tests_name("fund", tests, NULL, NULL);
}
