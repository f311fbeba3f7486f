/* Sampling schemes against aliasing, modelled on the ADC's exact timing grid (one
 * conversion every 104 us, each input sampled 12 us after its conversion starts), for the
 * issue-20 case: 1 voltage + 15 current channels, every current a capacitor-input supply
 * (MW_SIM_CAPIN: odd harmonics to the 51st, 11th 21 %, 13th 19 %), 230 V 50 or 60 Hz pure
 * sine, 250 ms windows (4 Hz) ending at set boundaries, 30 s.
 *
 * Each scheme is a rule for which conversion samples which input; a channel's window power
 * is the mean of v(t) i(t) at its own sample instants, with the voltage exact at each
 * instant (what a perfect interpolation gives: the firmware's own interpolation error is
 * measured separately, test_harmonics), so what is left is the scheme's sampling
 * (aliasing) error alone. Ground truth: the integral of v i over the window's span
 * [t_start, t_end) at 2^16 steps per mains period (3-4 MHz), by a cumulative table.
 * Reported per scheme: coverage (fraction of the time each current is sampled), per-window
 * error (1 sigma, worst channel) and energy error over 30 s (worst channel), in
 * docs/firmware.md, "Sampling schemes against aliasing". The asserts hold the table's
 * figures: the goal (per window 1 %, energy 0.1 %) for the schemes that reach it, the
 * dummy conversion's 3 % / 0.1 % (0.5 % / 0.05 % with PFC loads), today's > 5 %. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "afe.h"
#include "harness.h"

#define NTAB (1 << 16)
#define CONV_S (MW_CONV_US * 1e-6)
#define T_RUN 20.0
#define NCH 15

typedef struct {
    double hz;
    double pole_hz;  /* matched anti-aliasing filter on every input: corner (0 = none) */
    int order;       /* its order (Butterworth) */
    double *tab;     /* cumulative integral of the filtered v i over one period */
    mw_sim_wave wave; /* the current: MW_SIM_CAPIN (default) or MW_SIM_PFC */
} model;

/* Filter response at frequency f: |H| and phase (Butterworth, order n, corner fc). */
static void filt(const model *m, double f, double *g, double *ph)
{
    *g = 1;
    *ph = 0;
    if (m->pole_hz <= 0) return;
    double complex_re = 1, complex_im = 0; /* product over the poles of 1 / (1 - s/p) */
    double s = f / m->pole_hz;
    for (int k = 0; k < m->order; k++) {
        double a = M_PI * (2 * k + 1 + m->order) / (2 * m->order); /* pole angle */
        double pr = cos(a), pi = sin(a);                             /* p / wc */
        /* 1 / (j s - p) * (-p): -p / (j s - p) */
        double dr = -pr, di = s - pi;
        double nr = -pr, ni = -pi;
        double den = dr * dr + di * di;
        double qr = (nr * dr + ni * di) / den, qi = (ni * dr - nr * di) / den;
        double tr = complex_re * qr - complex_im * qi;
        complex_im = complex_re * qi + complex_im * qr;
        complex_re = tr;
    }
    *g = hypot(complex_re, complex_im);
    *ph = atan2(complex_im, complex_re);
}

static double v_at(const model *m, double t)
{
    double g, ph;
    filt(m, m->hz, &g, &ph);
    return 230.0 * M_SQRT2 * g * sin(2 * M_PI * m->hz * t + ph);
}

/* the capacitor-input current (fundamental 4 A peak), through the same filter */
static double i_at(const model *m, double t)
{
    if (m->pole_hz <= 0) return 4.0 * mw_sim_wave_value(m->wave, 2 * M_PI * m->hz * t);
    static double gh[52], phh[52], hz_done = -1, pole_done = -1;
    if (hz_done != m->hz || pole_done != m->pole_hz) {
        for (int h = 1; h <= 51; h += 2)
            filt(m, h * m->hz, &gh[h], &phh[h]);
        hz_done = m->hz;
        pole_done = m->pole_hz;
    }
    /* the series of MW_SIM_CAPIN, harmonic by harmonic: recover it by projection once */
    static double a[52], b[52];
    static int hz_c = -1;
    if (hz_c != (int)m->wave) {
        const int n = 4096;
        for (int h = 1; h <= 51; h += 2) {
            a[h] = b[h] = 0;
            for (int j = 0; j < n; j++) {
                double x = 2 * M_PI * (j + 0.5) / n, y = mw_sim_wave_value(m->wave, x);
                a[h] += y * sin(h * x) * 2 / n;
                b[h] += y * cos(h * x) * 2 / n;
            }
        }
        hz_c = (int)m->wave;
    }
    double x = 2 * M_PI * m->hz * t, s = 0;
    for (int h = 1; h <= 51; h += 2)
        s += gh[h] * (a[h] * sin(h * x + phh[h]) + b[h] * cos(h * x + phh[h]));
    return 4.0 * s;
}

static void build(model *m)
{
    double per = 1.0 / m->hz, dt = per / NTAB;
    m->tab = malloc((NTAB + 1) * sizeof *m->tab);
    assert_non_null(m->tab);
    m->tab[0] = 0;
    for (int j = 0; j < NTAB; j++) {
        double t = (j + 0.5) * dt;
        m->tab[j + 1] = m->tab[j] + v_at(m, t) * i_at(m, t) * dt;
    }
}

static double energy_to(const model *m, double t)
{
    double per = 1.0 / m->hz, cyc = floor(t / per), fr = (t - cyc * per) / per * NTAB;
    int j = (int)fr;
    if (j >= NTAB) j = NTAB - 1;
    return cyc * m->tab[NTAB] + m->tab[j] + (fr - j) * (m->tab[j + 1] - m->tab[j]);
}

/* ---- schemes: each yields, conversion by conversion, the input it samples ----------- */

typedef enum { SC_ROUND, SC_DUMMY, SC_GROUPS, SC_DITHER, SC_LOCKED } scheme_kind;

typedef struct {
    const char *name;
    scheme_kind kind;
    int ngroups;           /* SC_GROUPS: groups of 15 / ngroups currents, one mains cycle each;
                              SC_LOCKED: the cycles over which the sets lock; SC_DITHER: idle
                              conversions 0 .. ngroups */
    int dummy;             /* an idle conversion after the voltage's */
    int nch;               /* current channels on the ADC (0: 15) */
    double pole_hz;        /* matched filter corner (0: none) */
    int order;
    double want_window, want_energy; /* asserted bounds (0: none) */
    mw_sim_wave wave;                /* the loads' current (0: MW_SIM_CAPIN) */
} scheme;

typedef struct {
    double sig_worst, e_worst, coverage;
} result;

static int nch_of(const scheme *sc)
{
    return sc->nch ? sc->nch : NCH;
}

/* Real power a matched filter removes with the voltage's harmonics: a 5 % THD voltage
 * (3rd 4 %, 5th 3 %) in phase with the capacitor-input current's 3rd and 5th (the worst
 * case), calibrated at the fundamental; a fraction of the true power. */
static double harmonic_loss(const scheme *sc, double hz)
{
    if (sc->pole_hz <= 0) return 0;
    model m = {hz, sc->pole_hz, sc->order, NULL, sc->wave ? sc->wave : MW_SIM_CAPIN};
    double g1, g3, g5, ph;
    filt(&m, hz, &g1, &ph);
    filt(&m, 3 * hz, &g3, &ph);
    filt(&m, 5 * hz, &g5, &ph);
    double p3 = 0.04 * 0.845727, p5 = 0.03 * 0.594957; /* of the fundamental's power */
    double lost = p3 * (1 - g3 * g3 / (g1 * g1)) + p5 * (1 - g5 * g5 / (g1 * g1));
    return lost / (1 + p3 + p5);
}

/* Sets: voltage, then the currents of the set; returns the conversions in the set and
 * fills chans (-1 = dummy). */
static int next_set(const scheme *sc, const model *m, uint64_t c0, uint32_t nset,
                    unsigned *rng, int *chans)
{
    int n = 0;
    chans[n++] = 0;
    if (sc->kind == SC_DUMMY || sc->dummy) chans[n++] = -1;
    if (sc->kind == SC_GROUPS) {
        /* group g for the mains cycle the set starts in */
        double t = c0 * CONV_S;
        int g = (int)fmod(floor(t * m->hz), sc->ngroups);
        int per = nch_of(sc) / sc->ngroups;
        for (int k = 0; k < per; k++)
            chans[n++] = 1 + g * per + k;
        return n;
    }
    for (int k = 1; k <= nch_of(sc); k++)
        chans[n++] = k;
    if (sc->kind == SC_DITHER) { /* 0 or 1 idle conversion, from a 16-bit LFSR */
        *rng = *rng * 1103515245u + 12345u;
        int idle = (int)((*rng >> 16) % (unsigned)(sc->ngroups + 1));
        for (int j = 0; j < idle; j++)
            chans[n++] = -1;
    }
    if (sc->kind == SC_LOCKED) {
        /* 2 k + 1 sets over two mains cycles: idle conversions after the set whenever the
         * set's start falls behind that ideal grid */
        int q = sc->ngroups;
        double per2 = q / m->hz, fit = floor(per2 / (n * CONV_S));
        while (fit > 1) { /* sets per q cycles: prime to q, each >= n conversions */
            int a = (int)fit, b = q;
            while (b) { int t = a % b; a = b; b = t; }
            if (a == 1) break;
            fit -= 1;
        }
        double sets2 = fit;
        double ideal = (nset + 1) * per2 / sets2;
        while ((c0 + (uint64_t)n) * CONV_S < ideal - CONV_S / 2)
            chans[n++] = -1;
    }
    return n;
}

static result run_scheme(const scheme *sc, double hz)
{
    model m = {hz, sc->pole_hz, sc->order, NULL, sc->wave ? sc->wave : MW_SIM_CAPIN};
    build(&m);
    double sum[NCH + 1], t_first[NCH + 1];
    int cnt[NCH + 1];
    double s1[NCH + 1] = {0}, s2[NCH + 1] = {0}, em[NCH + 1] = {0};
    int nw = 0;
    double covered[NCH + 1] = {0};
    unsigned rng = 0xACE1u;
    uint64_t c = 0;
    uint32_t nset = 0;
    double t_win0 = 0;
    for (int k = 0; k <= NCH; k++) sum[k] = cnt[k] = 0, t_first[k] = 0;
    int chans[64];
    double t0 = 13.5 * 128 / 16e6; /* sample instant of conversion 0 */
    while (c * CONV_S < T_RUN) {
        int n = next_set(sc, &m, c, nset, &rng, chans);
        for (int j = 0; j < n; j++) {
            int k = chans[j];
            if (k <= 0) continue;
            double t = t0 + (c + (uint64_t)j) * CONV_S;
            sum[k] += v_at(&m, t) * i_at(&m, t);
            cnt[k]++;
        }
        for (int k = 1; k <= nch_of(sc); k++) /* time a channel's samples stand for: its sets */
            for (int j = 0; j < n; j++)
                if (chans[j] == k) covered[k] += n * CONV_S;
        c += (uint64_t)n;
        nset++;
        double t_now = c * CONV_S;
        if (t_now >= (nw + 1) * 0.25) { /* a window ends at this set boundary */
            double t_w1 = t_now;
            for (int k = 1; k <= nch_of(sc); k++) {
                if (!cnt[k]) continue;
                double p = sum[k] / cnt[k];
                double truth = (energy_to(&m, t_w1) - energy_to(&m, t_win0)) / (t_w1 - t_win0);
                double e = p / truth - 1;
                s1[k] += e;
                s2[k] += e * e;
                em[k] += p * (t_w1 - t_win0);
                sum[k] = 0;
                cnt[k] = 0;
            }
            t_win0 = t_w1;
            nw++;
        }
    }
    result r = {0, 0, 0};
    double e_true = energy_to(&m, t_win0) - energy_to(&m, 0);
    r.coverage = 1;
    for (int k = 1; k <= nch_of(sc); k++) {
        double mu = s1[k] / nw, sd = sqrt(fmax(s2[k] / nw - mu * mu, 0));
        r.sig_worst = fmax(r.sig_worst, sd);
        r.e_worst = fmax(r.e_worst, fabs(em[k] / e_true - 1));
        r.coverage = fmin(r.coverage, covered[k] / t_win0);
    }
    free(m.tab);
    (void)t_first;
    return r;
}

static void schemes(void **st)
{
    const scheme list[] = {
        {"round robin, sets of 16 (today)", SC_ROUND, 0, 0, 0, 0, 0, 0, 0, 0},
        {"PFC loads: round robin, sets of 16 (today)", SC_ROUND, 0, 0, 0, 0, 0, 0, 0, MW_SIM_PFC},
        {"PFC loads: dummy conversion (sets of 17)", SC_DUMMY, 0, 0, 0, 0, 0, 0.005, 0.0005, MW_SIM_PFC},
        {"dummy conversion after V (sets of 17)", SC_DUMMY, 0, 0, 0, 0, 0, 0.03, 0.001, 0},
        {"dithered sets (16 or 17)", SC_DITHER, 1, 0, 0, 0, 0, 0, 0, 0},
        {"dummy + dithered (17 .. 19)", SC_DITHER, 2, 1, 0, 0, 0, 0, 0, 0},

        {"mains-locked: 23/19 sets per 2 cycles", SC_LOCKED, 2, 0, 0, 0, 0, 0, 0, 0},
        {"mains-locked: 47/39 sets per 4 cycles", SC_LOCKED, 4, 0, 0, 0, 0, 0, 0, 0},
        {"3 groups of 5, one mains cycle each", SC_GROUPS, 3, 0, 0, 0, 0, 0, 0, 0},
        {"5 groups of 3, one mains cycle each", SC_GROUPS, 5, 0, 0, 0, 0, 0, 0, 0},
        {"3 groups of 5 + dummy, one mains cycle each", SC_GROUPS, 3, 1, 0, 0, 0, 0, 0, 0},
        {"matched filters 2nd order 150 Hz", SC_ROUND, 0, 0, 0, 150, 2, 0, 0, 0},
        {"matched filters 4th order 150 Hz", SC_ROUND, 0, 0, 0, 150, 4, 0.01, 0.001, 0},
        {"matched filters 4th order 200 Hz", SC_ROUND, 0, 0, 0, 200, 4, 0, 0, 0},
        {"1 V + 7 I per ADC (two boards)", SC_ROUND, 0, 0, 7, 0, 0, 0, 0, 0},
        {"1 V + 7 I per ADC + 4th order 300 Hz", SC_ROUND, 0, 0, 7, 300, 4, 0.01, 0.001, 0},
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        /* the mains is never exactly 50 or 60 Hz: the worst of -0.2, 0, +0.2 Hz */
        result r[2] = {{0, 0, 1}, {0, 0, 1}};
        for (int g = 0; g < 2; g++)
            for (int d = -1; d <= 1; d++) {
                result x = run_scheme(&list[i], (g ? 60.0 : 50.0) + 0.2 * d);
                r[g].sig_worst = fmax(r[g].sig_worst, x.sig_worst);
                r[g].e_worst = fmax(r[g].e_worst, x.e_worst);
                r[g].coverage = fmin(r[g].coverage, x.coverage);
            }
        double loss = fmax(harmonic_loss(&list[i], 50), harmonic_loss(&list[i], 60));
        print_message("| %s | %.0f %% | %.2f %% / %.2f %% | %.3f %% / %.3f %% | %.2f %% |\n",
                      list[i].name, 100 * fmin(r[0].coverage, r[1].coverage),
                      100 * r[0].sig_worst, 100 * r[1].sig_worst, 100 * r[0].e_worst,
                      100 * r[1].e_worst, 100 * loss);
        if (list[i].want_window > 0) {
            assert_true(r[0].sig_worst < list[i].want_window && r[1].sig_worst < list[i].want_window);
            assert_true(r[0].e_worst < list[i].want_energy && r[1].e_worst < list[i].want_energy);
        }
        if (list[i].kind == SC_ROUND && list[i].pole_hz == 0 && !list[i].nch && !list[i].wave) /* today: far from the goal */
            assert_true(r[0].sig_worst > 0.05 && r[1].sig_worst > 0.05);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(schemes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
