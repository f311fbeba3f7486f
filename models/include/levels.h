/* levels — a channel's two power levels, Pow_idle and Pow_work (Escobar et al.), estimated three
 * ways from its window powers (W):
 *   mw_levels_kde   the paper's method: Gaussian kernel density (Silverman's bandwidth
 *                   1.06 sd n^(-1/5), computed binned with an FFT so it scales to millions
 *                   of samples); the two highest local maxima, lower = idle, higher =
 *                   work; unimodal says so;
 *   mw_levels_gmm   a two-component Gaussian mixture fitted by EM (plus a uniform
 *                   background that takes the windows straddling a change of level);
 *   mw_levels_split the phase-labelled truth: mean power of the samples labelled working vs
 *                   idle (the caller labels them from the phase events).
 * All return 0, or -1 when the input cannot give an estimate (n < 2, NaN), with the reason
 * in out->note. No NaN is ever written. Constant input (zero spread) is one level: 0, with
 * bimodal = 0 and a note.
 *
 * Unimodal (bimodal = 0, idle_w = work_w = the one level, idle_weight = 1):
 *   KDE  fewer than two local maxima of the density, or the second highest maximum is
 *        lower than MW_LEVELS_MIN_PEAK_RATIO of the highest, or the density between them
 *        does not dip below (1 - MW_LEVELS_MIN_DIP) of the lower one (a shoulder or a noise
 *        ripple is not a second level); the level is the highest maximum;
 *   GMM  the fitted mixture density has one mode (the two components merged), or a
 *        component's weight is under MW_LEVELS_MIN_WEIGHT, or one Gaussian fits at least as
 *        well by BIC (both models with the uniform background of levels.c); the level is
 *        the sample mean and the sds are the sample sd;
 *   split no sample labelled idle, or none labelled working; the level is the other mean. */
#ifndef MW_LEVELS_H
#define MW_LEVELS_H
#include <stddef.h>

typedef struct {
    int bimodal;                 /* 1: two levels found; 0: one level (idle = work = it) */
    double idle_w, work_w;       /* the levels, W */
    double idle_sd_w, work_sd_w; /* spread of each level (GMM: component sd; KDE: 0; split:
                                    sample sd), W */
    double idle_weight;          /* fraction of samples at the idle level (GMM: weight of the
                                    idle component relative to the two; KDE: fraction of
                                    samples nearer idle than work; split: fraction labelled
                                    idle); 1 when unimodal */
    double bandwidth_w;          /* KDE only: the kernel bandwidth used, W */
    int bins;                    /* KDE only: histogram bins, ceil(sqrt(n)) */
    char note[160];              /* why not bimodal, or why no estimate */
} mw_levels;

/* KDE: a second maximum counts when it is at least this fraction of the highest ... */
#define MW_LEVELS_MIN_PEAK_RATIO 0.05
/* ... and the density between the two falls at least this fraction below the lower one. */
#define MW_LEVELS_MIN_DIP 0.10
/* GMM: a component with less weight than this is no level. */
#define MW_LEVELS_MIN_WEIGHT 0.01

int mw_levels_kde(const double *power_w, size_t n, mw_levels *out);
int mw_levels_gmm(const double *power_w, size_t n, mw_levels *out);
/* working[i] != 0: sample i is labelled working, else idle. */
int mw_levels_split(const double *power_w, const unsigned char *working, size_t n, mw_levels *out);

/* The same density the KDE estimate uses, evaluated straight (O(n x grid)), for tests and
 * the benchmark: density at x[0..m) with bandwidth h. */
void mw_levels_kde_direct(const double *power_w, size_t n, double h, const double *x, size_t m,
                          double *density);

/* The KDE's bandwidth: Silverman's rule of thumb with a normal reference (Silverman 1986,
 * "Density Estimation", eq. 3.28): h = 1.06 sd n^(-1/5), W. 0 for constant input, -1 for
 * n < 2 or a non-finite sample. Not the robust variant below (eq. 3.31, R's bw.nrd0): when
 * one level holds more than 3/4 of the samples both quartiles fall in it, the IQR is that
 * level's width, and the other level's peak is under-smoothed into noise (its mode off by
 * 2-4 W on 2,400 samples of 156/225 W levels at 80/20 %, against 0.4 W with eq. 3.28; the
 * larger h of eq. 3.28 also gives fewer spurious second modes on small unimodal samples). */
double mw_levels_bandwidth_w(const double *power_w, size_t n);
/* Silverman's robust rule (eq. 3.31): 0.9 min(sd, IQR / 1.34) n^(-1/5), W; sd alone when the
 * IQR is 0. For comparison (tests, benchmark). */
double mw_levels_bandwidth_robust_w(const double *power_w, size_t n);

/* The KDE's density (1/W) with bandwidth h_w on the grid lo_w + i step_w, i < m, computed
 * binned: every sample's unit weight is split linearly between its two nearest grid points
 * (the grid extended by the kernel's reach, 6 h, on both sides; samples beyond that add
 * nothing there), and the counts are convolved with the Gaussian kernel sampled on the grid
 * by FFT (GSL radix-2, zero-padded: no wrap-around). Error against mw_levels_kde_direct is
 * O((step/h)^2); mw_levels_kde uses step = h / MW_LEVELS_GRID_PER_H. Returns 0, or -1 for
 * bad arguments (n = 0, h or step not > 0, m = 0, too large a transform). */
int mw_levels_kde_grid(const double *power_w, size_t n, double h_w, double lo_w, double step_w,
                       size_t m, double *density);
#define MW_LEVELS_GRID_PER_H 16
#define MW_LEVELS_GRID_MAX ((size_t)1 << 20) /* grid points at most (then a coarser step) */

/* The paper's histogram: ceil(sqrt(n)) bins. */
size_t mw_levels_hist_bins(size_t n);
/* counts[0..bins) of equal bins from the smallest sample (*lo_w) to the largest (the largest
 * in the last bin), width *width_w (for constant input: one value, width 1 W centred on
 * it). Returns 0, or -1 for n = 0, bins = 0 or a non-finite sample. */
int mw_levels_histogram(const double *power_w, size_t n, size_t bins, double *lo_w, double *width_w,
                        double *counts);
#endif
