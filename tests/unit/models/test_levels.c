/* Pow_idle / Pow_work estimators (models/levels.c) on synthetic traces whose levels are
 * known by construction.
 *
 * Traces: 4,800 windows (20 min at 4 Hz) of a node that alternates idle and working phases
 * of exponentially distributed lengths (a cycle of 60 s on average, the idle share f of it
 * idle), at the levels of Escobar et al. Table 5 (mean Pow_idle / Pow_work of each node and
 * version), with per-window noise of sd 1.5 W idle and 4 W working (a node's power
 * fluctuates by a few W from window to window), rounded to the meter's 1 mW. A window that
 * straddles a change of phase holds the time-weighted mix of both levels, as the meter's
 * mean over the window would, and is labelled by the phase covering most of it. Idle shares
 * f = 0.2, 0.5, 0.8; three seeds each.
 *
 * Tolerances (|estimate - true level|, both levels), stated in docs/analysis.md:
 *   KDE (mode of the density) 1.0 W; GMM (component means) 0.5 W; split (labelled means)
 *   1.0 W (windows that straddle a change count fully for the phase covering most of them).
 * The worst errors over these 54 traces are printed with the tolerances (when written:
 * 0.66, 0.36, 0.77 W).
 *
 * Also: a unimodal trace (one level, and two levels too close to separate) is reported as
 * such by KDE and GMM; constant input gives one level and a note, no NaN; n = 0 / 1 and
 * NaN are errors with a note; the binned FFT density matches the direct sum to 0.1 % and
 * integrates to 1; the bandwidth rules and the histogram on inputs worked by hand. */
#include "../unit.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "levels.h"

#define N_WINDOWS 4800
#define CYCLE_WINDOWS 240.0 /* 60 s at 4 Hz */
#define IDLE_SD_W 1.5
#define WORK_SD_W 4.0
#define TOL_KDE_W 1.0
#define TOL_GMM_W 0.5
#define TOL_SPLIT_W 1.0

/* Escobar et al. Table 5: Pow_idle, Pow_work (W) of N1..N3, v2 and v3 */
static const double table5[][2] = {
    {156.30, 224.72}, {156.58, 234.72}, {146.08, 160.01},
    {154.38, 177.36}, {172.76, 226.38}, {170.14, 244.58},
};
static const char *const table5_name[] = {"N1 v2", "N1 v3", "N2 v2", "N2 v3", "N3 v2", "N3 v3"};

static double level_sample(gsl_rng *r, int working, double idle_w, double work_w)
{
    return working ? work_w + gsl_ran_gaussian(r, WORK_SD_W)
                   : idle_w + gsl_ran_gaussian(r, IDLE_SD_W);
}

/* The trace described at the top into p[0..n), labels into lab. */
static void make_trace(gsl_rng *r, double idle_w, double work_w, double f, double *p,
                       unsigned char *lab, size_t n)
{
    int working = gsl_rng_uniform(r) >= f;
    double left = 1 + gsl_ran_exponential(r, CYCLE_WINDOWS * (working ? 1 - f : f));
    for (size_t i = 0; i < n; i++) {
        if (left >= 1) { /* the whole window in this phase */
            p[i] = level_sample(r, working, idle_w, work_w);
            lab[i] = (unsigned char)working;
            left -= 1;
            continue;
        }
        /* the phase ends inside this window: mix with the next one */
        double a = level_sample(r, working, idle_w, work_w), frac = left;
        int was = working;
        working = !working;
        double b = level_sample(r, working, idle_w, work_w);
        p[i] = frac * a + (1 - frac) * b;
        lab[i] = (unsigned char)(frac >= 0.5 ? was : working);
        left = 1 + gsl_ran_exponential(r, CYCLE_WINDOWS * (working ? 1 - f : f)) - (1 - frac);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = round(p[i] * 1000) / 1000;
}

static void assert_finite_levels(const mw_levels *L)
{
    assert_true(isfinite(L->idle_w) && isfinite(L->work_w) && isfinite(L->idle_sd_w) &&
                isfinite(L->work_sd_w) && isfinite(L->idle_weight) && isfinite(L->bandwidth_w));
}

static void table5_levels(void **state)
{
    double *p = malloc(N_WINDOWS * sizeof *p);
    unsigned char *lab = malloc(N_WINDOWS);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double worst[3] = {0, 0, 0};
    static const double shares[] = {0.2, 0.5, 0.8};
    for (size_t row = 0; row < 6; row++)
        for (size_t s = 0; s < 3; s++)
            for (unsigned long seed = 1; seed <= 3; seed++) {
                gsl_rng_set(r, 1000 * row + 10 * s + seed);
                double idle = table5[row][0], work = table5[row][1], f = shares[s];
                make_trace(r, idle, work, f, p, lab, N_WINDOWS);
                mw_levels L[3];
                assert_int_equal(mw_levels_kde(p, N_WINDOWS, &L[0]), 0);
                assert_int_equal(mw_levels_gmm(p, N_WINDOWS, &L[1]), 0);
                assert_int_equal(mw_levels_split(p, lab, N_WINDOWS, &L[2]), 0);
                static const double tol[] = {TOL_KDE_W, TOL_GMM_W, TOL_SPLIT_W};
                static const char *const method[] = {"kde", "gmm", "split"};
                for (int m = 0; m < 3; m++) {
                    assert_finite_levels(&L[m]);
                    if (!L[m].bimodal)
                        fail_msg("%s, %s, idle share %.1f, seed %lu: not bimodal (%s)",
                                 table5_name[row], method[m], f, seed, L[m].note);
                    double e = fmax(fabs(L[m].idle_w - idle), fabs(L[m].work_w - work));
                    if (e > worst[m]) worst[m] = e;
                    if (e > tol[m])
                        fail_msg("%s, %s, idle share %.1f, seed %lu: %.3f / %.3f W, true "
                                 "%.2f / %.2f W (tolerance %.1f W)",
                                 table5_name[row], method[m], f, seed, L[m].idle_w, L[m].work_w,
                                 idle, work, tol[m]);
                }
                /* the idle share: the fraction of windows nearer idle (KDE), the idle
                 * component's weight (GMM), the labelled share (split) */
                size_t n_idle = 0;
                for (size_t i = 0; i < N_WINDOWS; i++)
                    n_idle += !lab[i];
                double share = (double)n_idle / N_WINDOWS;
                assert_true(fabs(L[0].idle_weight - share) < 0.05);
                assert_true(fabs(L[1].idle_weight - share) < 0.02);
                assert_true(L[2].idle_weight == share);
                /* the mixture's sds are the noise's, the KDE's bandwidth is stated */
                /* the mixture's sds are the noise's (its background takes the windows that
                 * mix both levels); the split's are widened by those windows */
                assert_true(fabs(L[1].idle_sd_w - IDLE_SD_W) < 0.3);
                assert_true(fabs(L[1].work_sd_w - WORK_SD_W) < 0.6);
                assert_true(L[2].idle_sd_w > 0.9 * IDLE_SD_W && L[2].idle_sd_w < IDLE_SD_W + 3.5);
                assert_true(L[2].work_sd_w > 0.9 * WORK_SD_W && L[2].work_sd_w < WORK_SD_W + 3.5);

                assert_true(L[0].bandwidth_w > 0 && L[0].bins == 70); /* ceil(sqrt(4800)) */
                assert_true(L[1].bandwidth_w == 0 && L[2].bandwidth_w == 0);
            }
    print_message("worst |error| over 54 traces: kde %.3f W (tolerance %.1f), gmm %.3f W "
                  "(%.1f), split %.3f W (%.1f)\n",
                  worst[0], TOL_KDE_W, worst[1], TOL_GMM_W, worst[2], TOL_SPLIT_W);
    gsl_rng_free(r);
    free(p);
    free(lab);
}

/* One level (N(160 W, 3 W)), and two levels 3 W apart with 3 W noise (a mixture with one
 * mode: separation under 2 sd), are reported unimodal by both density methods. */
static void unimodal(void **state)
{
    double *p = malloc(N_WINDOWS * sizeof *p);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (unsigned long seed = 1; seed <= 5; seed++) {
        gsl_rng_set(r, seed);
        for (int kind = 0; kind < 2; kind++) {
            for (size_t i = 0; i < N_WINDOWS; i++)
                p[i] = 160 + (kind && (i / 200) % 2 ? 3 : 0) + gsl_ran_gaussian(r, 3);
            mw_levels L;
            assert_int_equal(mw_levels_kde(p, N_WINDOWS, &L), 0);
            assert_finite_levels(&L);
            if (L.bimodal) fail_msg("kde, kind %d seed %lu: bimodal", kind, seed);
            assert_non_null(strstr(L.note, "unimodal"));
            assert_true(L.idle_w == L.work_w && L.idle_weight == 1);
            assert_true(fabs(L.idle_w - (kind ? 161.5 : 160)) < 1.0); /* the mode */
            assert_int_equal(mw_levels_gmm(p, N_WINDOWS, &L), 0);
            assert_finite_levels(&L);
            if (L.bimodal) fail_msg("gmm, kind %d seed %lu: bimodal", kind, seed);
            assert_non_null(strstr(L.note, "unimodal"));
            assert_true(fabs(L.idle_w - (kind ? 161.5 : 160)) < 0.3); /* the mean */
        }
    }
    /* split: nothing labelled idle */
    unsigned char *all = calloc(N_WINDOWS, 1);
    memset(all, 1, N_WINDOWS);
    mw_levels L;
    assert_int_equal(mw_levels_split(p, all, N_WINDOWS, &L), 0);
    assert_int_equal(L.bimodal, 0);
    assert_non_null(strstr(L.note, "no sample labelled idle"));
    free(all);
    gsl_rng_free(r);
    free(p);
}

/* Two narrow levels far apart (a step load: 150 W and 250 W, sd 0.5 and 0.3 W): between the
 * components only the flat background is left, with no strict minimum — still two modes. */
static void narrow_far_levels(void **state)
{
    (void)state;
    enum { N = 400 };
    double p[N];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (int i = 0; i < N; i++)
        p[i] = i < N / 2 ? 150 + gsl_ran_gaussian(r, 0.5) : 250 + gsl_ran_gaussian(r, 0.3);
    gsl_rng_free(r);
    mw_levels L;
    assert_int_equal(mw_levels_gmm(p, N, &L), 0);
    if (!L.bimodal) fail_msg("gmm: not bimodal (%s)", L.note);
    assert_float_equal(L.idle_w, 150, 0.1);
    assert_float_equal(L.work_w, 250, 0.1);
    assert_int_equal(mw_levels_kde(p, N, &L), 0);
    if (!L.bimodal) fail_msg("kde: not bimodal (%s)", L.note);
}

static void constant_and_errors(void **state)
{
    double c[100];
    for (int i = 0; i < 100; i++)
        c[i] = 3.5;
    mw_levels L;
    int (*const est[])(const double *, size_t, mw_levels *) = {mw_levels_kde, mw_levels_gmm};
    for (int m = 0; m < 2; m++) {
        assert_int_equal(est[m](c, 100, &L), 0);
        assert_int_equal(L.bimodal, 0);
        assert_true(L.idle_w == 3.5 && L.work_w == 3.5 && L.idle_sd_w == 0);
        assert_non_null(strstr(L.note, "constant"));
        assert_finite_levels(&L);
        /* n = 0, 1: no estimate, said */
        assert_int_equal(est[m](c, 0, &L), -1);
        assert_non_null(strstr(L.note, "0 samples"));
        assert_int_equal(est[m](c, 1, &L), -1);
        assert_non_null(strstr(L.note, "1 sample:"));
        assert_finite_levels(&L);
        double bad[] = {1, 2, NAN, 4};
        assert_int_equal(est[m](bad, 4, &L), -1);
        assert_non_null(strstr(L.note, "sample 2 is not a finite number"));
        double inf[] = {1, INFINITY};
        assert_int_equal(est[m](inf, 2, &L), -1);
    }
    unsigned char lab[2] = {0, 1};
    assert_int_equal(mw_levels_split(c, lab, 1, &L), -1);
    assert_int_equal(mw_levels_split(c, lab, 2, &L), 0);
    assert_int_equal(L.bimodal, 1);
    assert_true(L.idle_w == 3.5 && L.work_w == 3.5 && L.idle_weight == 0.5);
    /* one value apart from the rest: KDE finds the two, far apart */
    c[99] = 1000;
    assert_int_equal(mw_levels_kde(c, 100, &L), 0);
    assert_finite_levels(&L);
    assert_true(L.bimodal ? fabs(L.idle_w - 3.5) < 0.5 : strstr(L.note, "unimodal") != NULL);
    assert_true(mw_levels_bandwidth_w(c, 1) == -1);
    c[99] = 3.5;
    assert_true(mw_levels_bandwidth_w(c, 100) == 0);
}

/* Split: means and sample sds of the labelled sets, by hand. idle {10, 12} mean 11 sd
 * sqrt 2; working {20, 21, 25} mean 22 sd sqrt 7. */
static void split_by_hand(void **state)
{
    double p[] = {10, 20, 12, 21, 25};
    unsigned char lab[] = {0, 1, 0, 1, 1};
    mw_levels L;
    assert_int_equal(mw_levels_split(p, lab, 5, &L), 0);
    assert_int_equal(L.bimodal, 1);
    assert_true(fabs(L.idle_w - 11) < 1e-12 && fabs(L.work_w - 22) < 1e-12);
    assert_true(fabs(L.idle_sd_w - sqrt(2)) < 1e-12 && fabs(L.work_sd_w - sqrt(7)) < 1e-12);
    assert_true(fabs(L.idle_weight - 0.4) < 1e-12);
}

/* {1,2,3,4,5}: sd = sqrt(2.5) = 1.581139, 5^(-1/5) = 0.724780; normal reference h = 1.06 x
 * 1.581139 x 0.724780 = 1.214736; robust: IQR = 4 - 2 = 2, 2/1.34 = 1.492537 < sd, h = 0.9
 * x 1.492537 x 0.724780 = 0.973585 (R: bw.nrd0(1:5) = 0.9736). Histogram: ceil(sqrt(n)). */
static void bandwidth_and_histogram(void **state)
{
    double x[] = {1, 2, 3, 4, 5};
    assert_true(fabs(mw_levels_bandwidth_w(x, 5) - 1.06 * sqrt(2.5) * pow(5, -0.2)) < 1e-12);
    assert_true(fabs(mw_levels_bandwidth_w(x, 5) - 1.214736) < 1e-6);
    assert_true(fabs(mw_levels_bandwidth_robust_w(x, 5) - 0.973585) < 1e-6);
    assert_int_equal(mw_levels_hist_bins(1), 1);
    assert_int_equal(mw_levels_hist_bins(10), 4);
    assert_int_equal(mw_levels_hist_bins(16), 4);
    assert_int_equal(mw_levels_hist_bins(17), 5);
    assert_int_equal(mw_levels_hist_bins(1000000), 1000);
    assert_int_equal(mw_levels_hist_bins(1000001), 1001);
    /* {1,2,3,4,5,6,7,9,9,10}: 4 bins of 2.25 W from 1: [1,3.25) 3, [3.25,5.5) 2, [5.5,7.75)
     * 2, [7.75,10] 3 (the largest in the last bin) */
    double y[] = {1, 2, 3, 4, 5, 6, 7, 9, 9, 10}, counts[4], lo, width;
    assert_int_equal(mw_levels_histogram(y, 10, mw_levels_hist_bins(10), &lo, &width, counts), 0);
    assert_true(lo == 1 && width == 2.25);
    assert_true(counts[0] == 3 && counts[1] == 2 && counts[2] == 2 && counts[3] == 3);
    double z[] = {7, 7, 7};
    assert_int_equal(mw_levels_histogram(z, 3, 2, &lo, &width, counts), 0);
    assert_true(counts[0] + counts[1] == 3 && width == 1);
}

/* The binned FFT density against the direct sum on a bimodal sample, at the estimator's
 * step (h/16) and coarser ones (h/10, h/3): relative error where the density exceeds 1 % of
 * its peak (at most 0.5 %, 1 %, 10 %); and it integrates to 1. */
static void fft_density_matches_direct(void **state)
{
    enum { N = 3000 };
    double *p = malloc(N * sizeof *p);
    unsigned char *lab = malloc(N);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    make_trace(r, 156.30, 224.72, 0.5, p, lab, N);
    double h = mw_levels_bandwidth_w(p, N);
    static const double per_h[] = {MW_LEVELS_GRID_PER_H, 10, 3}, max_err[] = {0.005, 0.01, 0.1};
    double errs[3];
    for (int k = 0; k < 3; k++) {
        double step = h / per_h[k], lo = 100, hi = 280;
        size_t m = (size_t)((hi - lo) / step) + 1;
        double *x = malloc(m * sizeof *x), *fast = malloc(m * sizeof *fast),
               *slow = malloc(m * sizeof *slow);
        for (size_t i = 0; i < m; i++)
            x[i] = lo + (double)i * step;
        assert_int_equal(mw_levels_kde_grid(p, N, h, lo, step, m, fast), 0);
        mw_levels_kde_direct(p, N, h, x, m, slow);
        double peak = 0, err = 0, integral = 0;
        for (size_t i = 0; i < m; i++)
            peak = fmax(peak, slow[i]);
        for (size_t i = 0; i < m; i++) {
            integral += fast[i] * step;
            if (slow[i] > 0.01 * peak) err = fmax(err, fabs(fast[i] - slow[i]) / slow[i]);
        }
        errs[k] = err;
        if (err > max_err[k]) fail_msg("step h/%.0f: max relative error %g", per_h[k], err);
        assert_true(fabs(integral - 1) < 1e-3);
        free(x);
        free(fast);
        free(slow);
    }
    /* the error of linear binning goes as (step/h)^2: (10/3)^2 = 11 times more at h/3 */
    assert_true(errs[2] / errs[1] > 6 && errs[2] / errs[1] < 20);
    print_message("binned FFT density vs direct, max relative error: step h/%d %.4f %%, h/10 "
                  "%.4f %%, h/3 %.4f %%\n",
                  MW_LEVELS_GRID_PER_H, 100 * errs[0], 100 * errs[1], 100 * errs[2]);
    double d[4];
    assert_int_equal(mw_levels_kde_grid(p, N, 0, 0, 1, 4, d), -1);
    assert_int_equal(mw_levels_kde_grid(p, N, 1, 0, 0, 4, d), -1);
    assert_int_equal(mw_levels_kde_grid(p, 0, 1, 0, 1, 4, d), -1);
    gsl_rng_free(r);
    free(p);
    free(lab);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table5_levels),           cmocka_unit_test(unimodal),
        cmocka_unit_test(constant_and_errors),     cmocka_unit_test(split_by_hand),
        cmocka_unit_test(narrow_far_levels),
        cmocka_unit_test(bandwidth_and_histogram), cmocka_unit_test(fft_density_matches_direct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
