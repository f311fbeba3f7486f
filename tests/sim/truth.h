/* truth — what an ideal meter would report for a window, computed from the waveforms the
 * test injected (written out here, independently of the simulated board's code): the
 * noise-free, unquantised v(t) and i(t) at the instants the ADC samples, the voltage taken
 * at each current sample's instant. The injected waveforms have no DC, so these are plain
 * means over the window's instants (mean v*i is the window's energy / duration). Shared by
 * the accuracy test and the firmware benchmark. */
#ifndef MW_TEST_TRUTH_H
#define MW_TEST_TRUTH_H
#include <math.h>

#include "harness.h"

typedef struct {
    double i1_peak, pf;
    mw_sim_wave wave;
} load;

static __attribute__((unused)) double vrms_g, hz_g;

static __attribute__((unused)) double v_at(double t)
{
    return vrms_g * M_SQRT2 * sin(2 * M_PI * hz_g * t);
}

/* the waveforms, written out here independently of the board */
static __attribute__((unused)) double i_at(const load *l, double t)
{
    double x = 2 * M_PI * hz_g * t - acos(l->pf);
    if (l->wave == MW_SIM_SMPS)
        return l->i1_peak * (sin(x) - 0.75 * sin(3 * x) + 0.5 * sin(5 * x) - 0.25 * sin(7 * x));
    return l->i1_peak * sin(x);
}

static __attribute__((unused)) double wave_peak(mw_sim_wave w)
{
    if (w == MW_SIM_SINE) return 1.0;
    double m = 0;
    for (int i = 0; i < 200000; i++) {
        double x = 2 * M_PI * i / 200000.0;
        double v = fabs(sin(x) - 0.75 * sin(3 * x) + 0.5 * sin(5 * x) - 0.25 * sin(7 * x));
        m = v > m ? v : m;
    }
    return m;
}

typedef struct {
    double p, vrms, irms;
} truth;

/* Ideal values for current channel k (0-based). docs/protocol.md: a set is n + 2
 * conversions (the voltage, a dummy conversion of 0 V, then the n currents), so current
 * channel k is sampled at conversion c0 + s (n + 2) + k + 2. */
static __attribute__((unused)) truth window_truth(h_board *h, const mw_proto_window *w, int k,
                                                  const load *l)
{
    int m = w->nchan + 2;
    uint64_t c0 = w->t0_us / 104;
    double svi = 0, svv = 0, sii = 0;
    for (uint32_t n = 0; n < w->nsets; n++) {
        double tv = mw_sim_adc_sample_time(h->sim, c0 + (uint64_t)n * m);
        double ti = mw_sim_adc_sample_time(h->sim, c0 + (uint64_t)n * m + 2 + k);
        double v0 = v_at(tv), v = v_at(ti), i = i_at(l, ti);
        svi += v * i;
        sii += i * i;
        svv += v0 * v0;
    }
    double n = w->nsets;
    truth t = {svi / n, sqrt(svv / n), sqrt(sii / n)};
    return t;
}

#endif
