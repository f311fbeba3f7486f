/* bench_levels — Pow_idle / Pow_work estimation (models/levels.c), printed as a Markdown
 * section for docs/performance.md:
 *  - the KDE density computed binned with an FFT (mw_levels_kde_grid) against the straight
 *    O(n x grid) sum (mw_levels_kde_direct) on the same grid, the one mw_levels_kde uses
 *    (step h/16 over the samples +- 4 h): time, speed-up and the largest relative error
 *    where the density is above 1 % of its peak; goal >= 50x faster at <= 1 % error on
 *    1 M samples;
 *  - the whole estimators' time (KDE, GMM) and the levels they find.
 * Samples: a node at Escobar et al. Table 5's N1 v2 levels (156.30 W idle, 224.72 W working), 40 %
 * of the time idle in phases of 15 s on average, window noise sd 1.5 W idle / 4 W working,
 * windows that straddle a change mixing both, rounded to 1 mW. Fast timings are the best of
 * 5 runs, the direct sum runs once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "levels.h"

#define IDLE_W 156.30
#define WORK_W 224.72
#define IDLE_SHARE 0.4
#define PHASE_WINDOWS 60.0 /* 15 s at 4 Hz, on average */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double level(gsl_rng *r, int working)
{
    return working ? WORK_W + gsl_ran_gaussian(r, 4.0) : IDLE_W + gsl_ran_gaussian(r, 1.5);
}

static void make_trace(gsl_rng *r, double *p, size_t n)
{
    int working = 0;
    double left = 1 + gsl_ran_exponential(r, PHASE_WINDOWS * IDLE_SHARE / 0.5);
    for (size_t i = 0; i < n; i++) {
        if (left >= 1) {
            p[i] = level(r, working);
            left -= 1;
        } else {
            double frac = left, a = level(r, working);
            working = !working;
            p[i] = frac * a + (1 - frac) * level(r, working);
            double mean = PHASE_WINDOWS * (working ? 1 - IDLE_SHARE : IDLE_SHARE) / 0.5;
            left = 1 + gsl_ran_exponential(r, mean) - (1 - frac);
        }
        p[i] = round(p[i] * 1000) / 1000;
    }
}

typedef struct {
    size_t n, m;
    double h, kde_s, grid_s, direct_s, err, gmm_s;
    mw_levels kde, gmm;
} row;

static void run(gsl_rng *r, size_t n, row *o)
{
    double *p = malloc(n * sizeof *p);
    make_trace(r, p, n);
    o->n = n;
    o->h = mw_levels_bandwidth_w(p, n);
    double mn, mx;
    gsl_stats_minmax(&mn, &mx, p, 1, n);
    double lo = mn - 4 * o->h, step = o->h / MW_LEVELS_GRID_PER_H;
    o->m = (size_t)ceil((mx - mn + 8 * o->h) / step) + 1;
    double *x = malloc(o->m * sizeof *x), *fast = malloc(o->m * sizeof *fast),
           *slow = malloc(o->m * sizeof *slow);
    for (size_t i = 0; i < o->m; i++)
        x[i] = lo + (double)i * step;
    o->kde_s = o->grid_s = o->gmm_s = INFINITY;
    for (int k = 0; k < 5; k++) {
        double t0 = now_s();
        mw_levels_kde(p, n, &o->kde);
        double t1 = now_s();
        mw_levels_kde_grid(p, n, o->h, lo, step, o->m, fast);
        double t2 = now_s();
        mw_levels_gmm(p, n, &o->gmm);
        double t3 = now_s();
        o->kde_s = fmin(o->kde_s, t1 - t0);
        o->grid_s = fmin(o->grid_s, t2 - t1);
        o->gmm_s = fmin(o->gmm_s, t3 - t2);
    }
    double t0 = now_s();
    mw_levels_kde_direct(p, n, o->h, x, o->m, slow);
    o->direct_s = now_s() - t0;
    double peak = 0;
    for (size_t i = 0; i < o->m; i++)
        peak = fmax(peak, slow[i]);
    o->err = 0;
    for (size_t i = 0; i < o->m; i++)
        if (slow[i] > 0.01 * peak) o->err = fmax(o->err, fabs(fast[i] - slow[i]) / slow[i]);
    free(p);
    free(x);
    free(fast);
    free(slow);
}

int main(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2019);
    static const size_t ns[] = {10000, 100000, 1000000};
    row rows[3];
    for (int i = 0; i < 3; i++)
        run(r, ns[i], &rows[i]);
    gsl_rng_free(r);

    printf("## Power levels (Pow_idle / Pow_work)\n\n");
    printf("`make bench` (tests/bench/bench_levels.c), on this machine (2 cores shared with other "
           "jobs). Samples: a node at Escobar et al. Table 5's N1 v2 levels (%.2f W idle, %.2f W "
           "working), idle %.0f %% of the time in phases of 15 s on average, window noise sd "
           "1.5 W idle / 4 W working, windows straddling a change mixing both.\n\n",
           IDLE_W, WORK_W, 100 * IDLE_SHARE);
    printf("### Kernel density: binned FFT against the direct sum\n\n");
    printf("The density mw_levels_kde uses (Gaussian kernel, Silverman's h = 1.06 sd "
           "n^-1/5), on its grid (step h/%d over the samples ± 4 h), computed binned with one "
           "FFT convolution (mw_levels_kde_grid) and as the straight sum over samples and grid "
           "points (mw_levels_kde_direct). Error: the largest relative difference where the "
           "density is above 1 %% of its peak. Goal on 1 M samples: ≥ 50× faster at ≤ 1 %% "
           "error.\n\n",
           MW_LEVELS_GRID_PER_H);
    printf("| samples | h (W) | grid points | FFT density (ms) | direct sum (s) | speed-up | "
           "max relative error |\n|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < 3; i++)
        printf("| %zu | %.3f | %zu | %.2f | %.2f | %.0f× | %.3f %% |\n", rows[i].n, rows[i].h,
               rows[i].m, 1e3 * rows[i].grid_s, rows[i].direct_s, rows[i].direct_s / rows[i].grid_s,
               100 * rows[i].err);
    const row *big = &rows[2];
    printf("\nOn 1 M samples the whole KDE estimate (bandwidth, grid, density, maxima) takes "
           "%.1f ms: **%.0f× faster than the direct sum alone, at %.3f %% density error**.\n\n",
           1e3 * big->kde_s, big->direct_s / big->kde_s, 100 * big->err);
    printf("### Estimators\n\n");
    printf("| samples | KDE (ms) | KDE idle / work (W) | GMM (ms) | GMM idle / work (W), sds "
           "(W) |\n|---|---|---|---|---|\n");
    for (int i = 0; i < 3; i++)
        printf("| %zu | %.2f | %.2f / %.2f | %.1f | %.2f / %.2f, %.2f / %.2f |\n", rows[i].n,
               1e3 * rows[i].kde_s, rows[i].kde.idle_w, rows[i].kde.work_w, 1e3 * rows[i].gmm_s,
               rows[i].gmm.idle_w, rows[i].gmm.work_w, rows[i].gmm.idle_sd_w,
               rows[i].gmm.work_sd_w);
    printf("\n");
    return 0;
}
