/* levels — a channel's two power levels, Pow_idle and Pow_work (seed 000), estimated three
 * ways from its window powers (W):
 *   mw_levels_kde   the paper's method: Gaussian kernel density (Silverman's bandwidth,
 *                   computed binned with an FFT so it scales to millions of samples); the
 *                   two highest local maxima, lower = idle, higher = work; unimodal says so;
 *   mw_levels_gmm   a two-component Gaussian mixture fitted by EM;
 *   mw_levels_split the phase-labelled truth: mean power of the samples labelled working vs
 *                   idle (the caller labels them from the phase events).
 * All return 0, or -1 when the input cannot give an estimate (n < 2, NaN), with the reason
 * in out->note. No NaN is ever written. */
#ifndef MW_LEVELS_H
#define MW_LEVELS_H
#include <stddef.h>

typedef struct {
    int bimodal;          /* 1: two levels found; 0: one level (idle = work = it) */
    double idle_w, work_w; /* the levels, W */
    double idle_sd_w, work_sd_w; /* spread of each level (GMM: component sd; KDE: 0; split:
                                    sample sd), W */
    double idle_weight;   /* fraction of samples at the idle level (GMM weight; KDE/split:
                             fraction of samples nearer / labelled idle) */
    double bandwidth_w;   /* KDE only: the kernel bandwidth used, W */
    int bins;             /* KDE only: histogram bins, ceil(sqrt(n)) */
    char note[160];       /* why not bimodal, or why no estimate */
} mw_levels;

int mw_levels_kde(const double *power_w, size_t n, mw_levels *out);
int mw_levels_gmm(const double *power_w, size_t n, mw_levels *out);
/* working[i] != 0: sample i is labelled working, else idle. */
int mw_levels_split(const double *power_w, const unsigned char *working, size_t n,
                    mw_levels *out);

/* The same density the KDE estimate uses, evaluated straight (O(n x grid)), for tests and
 * the benchmark: density at x[0..m) with bandwidth h. */
void mw_levels_kde_direct(const double *power_w, size_t n, double h, const double *x, size_t m,
                          double *density);
#endif
