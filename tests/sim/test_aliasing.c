/* Aliasing at 16 channels, through the real firmware ELF: 1 voltage + 15 capacitor-input
 * supplies (MW_SIM_CAPIN, harmonics to the 51st; test_frontend checks that waveform against
 * the rectifier it stands for), 230 V pure sine at 50 and at 60 Hz, 20 s each, 0.5 LSB of
 * ADC noise, the default 4 windows a second.
 *
 * Ground truth, independent of the firmware's arithmetic: the integral of v(t) i(t) (a
 * table over one mains period at 2^16 steps, 3.3-3.9 MHz) over exactly the span each
 * channel's samples cover in each window, [tau - T/2, tau + (N - 1/2) T) with tau the true
 * instant of the channel's first sample (mw_sim_adc_sample_time), T the set period and N
 * the window's sets; and, to tell the sampling's error from the arithmetic's, the mean of
 * v i at the channel's own sample instants ("sampled"), which is what a perfect meter with
 * these samples would report.
 *
 * What it shows (figures in docs/performance.md): the firmware reports what its samples
 * say (within 0.5 % of "sampled" per window), and the samples alias, but less since the
 * dummy conversion after the voltage made a set 17 conversions (1 V + 15 I, 566 Hz per
 * channel): per window the scatter against the truth is 2.7 % (50 Hz) and 1.7 % (60 Hz)
 * 1 sigma, 27-28 % with sets of 16, energy over 20 s within 0.06 % (0.5-0.6 % with sets
 * of 16): issue 20's 0.1 % on energy is met, its 1 % per window is not (no scheme on one
 * ADC reaches it: docs/firmware.md, "Sampling schemes against aliasing", compares them).
 * The sample instants follow docs/protocol.md: a set is n + 2 conversions, current
 * channel k (0-based) the (k + 2)-th after the voltage. */
#include <math.h>

#include "afe.h"
#include "harness.h"

#define NTAB (1 << 16)
#define VRMS 230.0
#define I1_PEAK 3.0 /* fundamental; the pulses peak at 3.5 x that: 44 % of full scale */
#define SECONDS 20.0

static double hz_g, *tab;

static double vi_at(double t)
{
    double x = 2 * M_PI * hz_g * t;
    return VRMS * M_SQRT2 * sin(x) * I1_PEAK * mw_sim_wave_value(MW_SIM_CAPIN, x);
}

static void build_table(void)
{
    double per = 1.0 / hz_g, dt = per / NTAB;
    tab = realloc(tab, (NTAB + 1) * sizeof *tab);
    assert_non_null(tab);
    tab[0] = 0;
    for (int j = 0; j < NTAB; j++)
        tab[j + 1] = tab[j] + vi_at((j + 0.5) * dt) * dt;
}

static double energy_to(double t)
{
    double per = 1.0 / hz_g, cyc = floor(t / per), fr = (t - cyc * per) / per * NTAB;
    int j = (int)fr;
    if (j >= NTAB) j = NTAB - 1;
    return cyc * tab[NTAB] + tab[j] + (fr - j) * (tab[j + 1] - tab[j]);
}

static void span(h_board *h, const mw_proto_window *w, int k, double *a, double *b)
{
    double tset = (w->nchan + 2) * MW_CONV_US * 1e-6; /* sets of n + 2 */
    double tau = mw_sim_adc_sample_time(h->sim, w->t0_us / MW_CONV_US + 2 + (uint64_t)k);
    *a = tau - tset / 2;
    *b = *a + w->nsets * tset;
}

static double sampled(h_board *h, const mw_proto_window *w, int k)
{
    int m = w->nchan + 2; /* the voltage, the dummy, the currents */
    uint64_t c = w->t0_us / MW_CONV_US + 2 + (uint64_t)k;
    double s = 0;
    for (uint32_t n = 0; n < w->nsets; n++)
        s += vi_at(mw_sim_adc_sample_time(h->sim, c + (uint64_t)n * m));
    return s / w->nsets;
}

static void sixteen_channels(double hz)
{
    hz_g = hz;
    build_table();
    h_board *h = h_open();
    assert_string_equal(h_cmd(h, "CH 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"), "OK,CH");
    mw_sim_set_mains(h->sim, 0, VRMS, hz);
    for (int pin = 1; pin < 16; pin++)
        mw_sim_set_current(h->sim, pin, I1_PEAK, 1.0, MW_SIM_CAPIN);
    h_forget(h);
    h_run_windows(h, (int)(SECONDS * 4) + 2, SECONDS + 3);
    const mw_proto_window *w0 = &h->win[1], *wl = &h->win[h->nwin - 1];
    double p_nom = VRMS * I1_PEAK / M_SQRT2;
    double sig_worst = 0, sig_s_worst = 0, arith_worst = 0, e_worst = 0;
    for (int k = 0; k < 15; k++) {
        double s1 = 0, s2 = 0, q1 = 0, q2 = 0;
        int n = 0;
        for (int i = 2; i < h->nwin; i++) {
            const mw_proto_window *w = &h->win[i];
            assert_int_equal(w->nchan, 15);
            assert_int_equal(w->missed, 0);
            double a, b;
            span(h, w, k, &a, &b);
            double truth = (energy_to(b) - energy_to(a)) / (b - a);
            double ps = sampled(h, w, k), p = w->ch[k].p_mw / 1e3;
            double e = p / truth - 1, es = ps / truth - 1;
            arith_worst = fmax(arith_worst, fabs(p - ps) / p_nom);
            s1 += e;
            s2 += e * e;
            q1 += es;
            q2 += es * es;
            n++;
        }
        double sd = sqrt(fmax(s2 / n - (s1 / n) * (s1 / n), 0));
        double sds = sqrt(fmax(q2 / n - (q1 / n) * (q1 / n), 0));
        sig_worst = fmax(sig_worst, sd);
        sig_s_worst = fmax(sig_s_worst, sds);
        double a0, b0, a1, b1;
        span(h, w0, k, &a0, &b0);
        span(h, wl, k, &a1, &b1);
        double e_true = energy_to(b1) - energy_to(b0);
        double e = (wl->ch[k].e_mj - w0->ch[k].e_mj) / 1e3;
        e_worst = fmax(e_worst, fabs(e / e_true - 1));
    }
    print_message("%.0f Hz, 1 V + 15 capacitor-input currents, %d windows: per window 1 sigma "
                  "(worst channel) %.2f %% against the integral (the samples themselves: %.2f %%), "
                  "firmware vs its samples worst %.3f %% of P, energy over %.0f s worst %.3f %%\n",
                  hz, h->nwin - 2, 100 * sig_worst, 100 * sig_s_worst, 100 * arith_worst,
                  SECONDS, 100 * e_worst);
    h_close(h);
    /* the arithmetic is not the problem: the firmware's voltage at each current sample is
     * interpolated (exact to the 5th harmonic), its samples are not; 0.32-0.51 % of P in the
     * worst window seen, against 27 % of aliasing before the dummy conversion */
    assert_true(arith_worst < 0.01);
    assert_true(fabs(sig_worst - sig_s_worst) < 0.01); /* the sampling is */
    assert_true(sig_worst < 0.035); /* 2.7 / 1.7 % measured; 27 / 28 % with sets of 16 */
    assert_true(e_worst < 0.001);   /* issue 20: 0.1 %; 0.06 / 0.04 % measured, 0.5 % before */
}

static void sixteen_channels_50hz(void **s)
{
    sixteen_channels(50.0);
}

static void sixteen_channels_60hz(void **s)
{
    sixteen_channels(60.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sixteen_channels_50hz),
        cmocka_unit_test(sixteen_channels_60hz),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(tab);
    return rc;
}
