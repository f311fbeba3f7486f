/* levels — see levels.h. Pow_idle / Pow_work of one channel from its window powers.
 *
 * KDE (Escobar et al. §5.2, Fig. 7): the paper fits a smooth density to the histogram of a node's
 * instantaneous power (⌈√n⌉ bins) and takes its two highest maxima. A two-peaked density
 * needs a kernel fit, so the density here is a Gaussian kernel density estimate with
 * Silverman's rule-of-thumb bandwidth for a normal reference, h = 1.06 sd n^(-1/5) (levels.h
 * says why not the robust 0.9 min(sd, IQR/1.34) n^(-1/5)). It is evaluated on a grid of step
 * h/16 spanning the samples ± 4 h by linear binning and one FFT convolution
 * (gsl_fft_real_radix2): O(n + G log G) instead of O(n G) for G grid points, within
 * O((step/h)²) of the direct sum (tests/bench/bench_levels.c measures it). Local maxima of
 * the grid density are refined by a parabola through the three grid values. The ⌈√n⌉-bin
 * histogram itself (gsl_histogram) is what plots draw under the density; it is not needed
 * to find the maxima.
 *
 * GMM: two 1-D Gaussians (the levels) fitted by EM from several starts given by quantile
 * pairs (the two quantiles split the samples by nearest, each side gives a start's weight,
 * mean and variance); each start runs 20 EM steps and the one with the highest likelihood
 * then runs to convergence (short runs to choose a start: Biernacki, Celeux & Govaert
 * 2003). A third component, uniform over the samples' range (weight 2 % at the start, then
 * fitted), takes the windows that straddle a change of level, whose mixed values would
 * otherwise pull the minority level's mean towards the other one and widen it (by 1.8 W and
 * to sd 9 W instead of 4 W on the 80/20 % traces of tests/unit/models/test_levels.c; 0.4 W and the
 * true sd with it). Weights are reported relative to the two levels. Variances are floored
 * at max((1 mW)², 1e-6 × the sample variance) so a component cannot collapse onto one
 * value. One level is preferred when a single Gaussian (with the background) has a BIC no
 * worse than two. Above 8,192 samples EM runs on 4,096 equal bins, each carrying its count,
 * its samples' mean and their sum of squares about it, so a step costs O(bins) and the
 * moments are those of the samples (only the responsibilities are taken constant within a
 * bin).
 *
 * Split: the means and sample sds of the two labelled sets.
 *
 * Every entry point checks its input (n, finiteness) first and fills out->note when it
 * returns -1 or finds one level; nothing writes NaN. */
#include "levels.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_statistics_double.h>

#define KERNEL_REACH_H 6.0 /* the kernel is cut at 6 h: exp(-18) = 1.5e-8 of its peak */
#define GRID_PAD_H 4.0     /* the KDE grid spans [min - 4 h, max + 4 h] */
#define FFT_MAX ((size_t)1 << 24)
#define GMM_BIN_ABOVE 8192
#define GMM_BINS 4096
#define GMM_SHORT_ITER 20 /* steps of every start; the best one goes on */
#define GMM_MAX_ITER 200
#define GMM_TOL 1e-7              /* change of the log-likelihood per sample that ends EM */
#define GMM_BACKGROUND_START 0.02 /* the background's weight at the start */

static void note(mw_levels *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->note, sizeof out->note, fmt, ap);
    va_end(ap);
}

static void levels_init(mw_levels *out)
{
    memset(out, 0, sizeof *out);
}

/* One level v (idle = work = v); sd as given. */
static void one_level(mw_levels *out, double v, double sd)
{
    out->bimodal = 0;
    out->idle_w = out->work_w = v;
    out->idle_sd_w = out->work_sd_w = sd;
    out->idle_weight = 1;
}

/* 0 when n >= 2 and every sample is finite, else -1 with the reason in out->note. */
static int check_input(const double *x, size_t n, mw_levels *out)
{
    if (n < 2 || !x) {
        note(out, "%zu sample%s: at least 2 are needed", n, n == 1 ? "" : "s");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            note(out, "sample %zu is not a finite number", i);
            return -1;
        }
    return 0;
}

size_t mw_levels_hist_bins(size_t n)
{
    size_t s = (size_t)sqrt((double)n);
    while (s * s < n)
        s++;
    while (s > 0 && (s - 1) * (s - 1) >= n)
        s--;
    return s;
}

int mw_levels_histogram(const double *power_w, size_t n, size_t bins, double *lo_w, double *width_w,
                        double *counts)
{
    if (!n || !bins || !power_w) return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(power_w[i])) return -1;
    double mn, mx;
    gsl_stats_minmax(&mn, &mx, power_w, 1, n);
    if (mx == mn) { /* one value: a bin of 1 W centred on it */
        mn -= 0.5 * bins;
        mx += 0.5 * bins;
    }
    gsl_histogram *h = gsl_histogram_alloc(bins);
    if (!h) return -1;
    gsl_histogram_set_ranges_uniform(h, mn, mx);
    for (size_t i = 0; i < n; i++)
        if (gsl_histogram_increment(h, power_w[i]) != 0) /* the largest: range is [lo, hi) */
            gsl_histogram_accumulate(h, h->range[bins - 1], 1.0);
    for (size_t b = 0; b < bins; b++)
        counts[b] = gsl_histogram_get(h, b);
    *lo_w = mn;
    *width_w = (mx - mn) / (double)bins;
    gsl_histogram_free(h);
    return 0;
}

/* Quantile p (R type 7, as gsl_stats_quantile_from_sorted_data) of tmp[0..n), which it
 * reorders. */
static double quantile7(double *tmp, size_t n, double p)
{
    double pos = (double)(n - 1) * p;
    size_t k = (size_t)pos;
    double lo = gsl_stats_select(tmp, 1, n, k);
    if (k + 1 >= n) return lo;
    double hi = tmp[k + 1]; /* after select, tmp[k+1..n) are >= tmp[k]: their minimum */
    for (size_t i = k + 2; i < n; i++)
        if (tmp[i] < hi) hi = tmp[i];
    return lo + (pos - (double)k) * (hi - lo);
}

double mw_levels_bandwidth_w(const double *power_w, size_t n)
{
    if (n < 2 || !power_w) return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(power_w[i])) return -1;
    double sd = gsl_stats_sd(power_w, 1, n);
    if (!(sd > 0)) return 0;
    return 1.06 * sd * pow((double)n, -0.2);
}

double mw_levels_bandwidth_robust_w(const double *power_w, size_t n)
{
    if (n < 2 || !power_w) return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(power_w[i])) return -1;
    double sd = gsl_stats_sd(power_w, 1, n);
    if (!(sd > 0)) return 0;
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return -1;
    memcpy(tmp, power_w, n * sizeof *tmp);
    double q1 = quantile7(tmp, n, 0.25), q3 = quantile7(tmp, n, 0.75);
    free(tmp);
    double spread = fmin(sd, (q3 - q1) / 1.34);
    if (!(spread > 0)) spread = sd;
    return 0.9 * spread * pow((double)n, -0.2);
}

int mw_levels_kde_grid(const double *power_w, size_t n, double h_w, double lo_w, double step_w,
                       size_t m, double *density)
{
    if (!n || !m || !power_w || !density || !(h_w > 0) || !(step_w > 0) || !isfinite(lo_w))
        return -1;
    double reach = ceil(KERNEL_REACH_H * h_w / step_w);
    if (!(reach < (double)FFT_MAX) || m > FFT_MAX) return -1;
    size_t K = (size_t)reach, mb = m + 2 * K, L = 2;
    while (L < mb)
        L <<= 1;
    if (L > FFT_MAX) return -1;
    double *c = calloc(L, sizeof *c), *k = calloc(L, sizeof *k);
    if (!c || !k) {
        free(c);
        free(k);
        return -1;
    }
    /* linear binning onto the extended grid blo + j step, j < mb */
    double blo = lo_w - (double)K * step_w, last = (double)(mb - 1);
    for (size_t i = 0; i < n; i++) {
        double p = (power_w[i] - blo) / step_w;
        if (!(p >= 0 && p <= last)) continue;
        size_t j = (size_t)p;
        double f = p - (double)j;
        if (j + 1 < mb) {
            c[j] += 1 - f;
            c[j + 1] += f;
        } else {
            c[j] += 1;
        }
    }
    /* the kernel at lags -K..K, negative lags wrapped to the end */
    double norm = 1.0 / ((double)n * h_w * sqrt(2 * M_PI));
    for (size_t l = 0; l <= K; l++) {
        double u = (double)l * step_w / h_w;
        k[l] = exp(-0.5 * u * u) * norm;
        if (l) k[L - l] = k[l];
    }
    gsl_fft_real_radix2_transform(c, 1, L);
    gsl_fft_real_radix2_transform(k, 1, L);
    /* product of two half-complex arrays: [0] and [L/2] real, [j] + i [L-j] for 0<j<L/2 */
    c[0] *= k[0];
    c[L / 2] *= k[L / 2];
    for (size_t j = 1; j < L / 2; j++) {
        double ar = c[j], ai = c[L - j], br = k[j], bi = k[L - j];
        c[j] = ar * br - ai * bi;
        c[L - j] = ar * bi + ai * br;
    }
    gsl_fft_halfcomplex_radix2_inverse(c, 1, L);
    for (size_t i = 0; i < m; i++) {
        double d = c[K + i];
        density[i] = d > 0 ? d : 0; /* round-off leaves ±1e-16 of the peak where it is 0 */
    }
    free(c);
    free(k);
    return 0;
}

void mw_levels_kde_direct(const double *power_w, size_t n, double h, const double *x, size_t m,
                          double *density)
{
    double norm = n ? 1.0 / ((double)n * h * sqrt(2 * M_PI)) : 0;
    for (size_t j = 0; j < m; j++) {
        double s = 0;
        for (size_t i = 0; i < n; i++) {
            double u = (x[j] - power_w[i]) / h;
            s += exp(-0.5 * u * u);
        }
        density[j] = s * norm;
    }
}

/* Position of the grid maximum at i, refined by the parabola through i-1, i, i+1. */
static double refine_max(const double *d, size_t i, double lo, double step)
{
    double den = d[i - 1] - 2 * d[i] + d[i + 1], off = 0;
    if (den < 0) off = 0.5 * (d[i - 1] - d[i + 1]) / den;
    if (off > 0.5) off = 0.5;
    if (off < -0.5) off = -0.5;
    return lo + ((double)i + off) * step;
}

static int is_max(const double *d, size_t i)
{
    return d[i] > d[i - 1] && d[i] >= d[i + 1];
}

/* The second level on the side of top that dir (+1/-1) walks to: the highest maximum that
 * passes both tests of levels.h, its valley in *valley. m grid points, returns the index or
 * 0 when none. */
static size_t second_on_side(const double *d, size_t m, size_t top, int dir, double *valley)
{
    double run_min = d[top], best = 0;
    size_t best_i = 0;
    for (size_t i = top; dir > 0 ? i + 2 < m : i > 1;) {
        i = dir > 0 ? i + 1 : i - 1;
        if (d[i] < run_min) run_min = d[i];
        if (!is_max(d, i) || d[i] < MW_LEVELS_MIN_PEAK_RATIO * d[top]) continue;
        if (run_min <= (1 - MW_LEVELS_MIN_DIP) * d[i] && d[i] > best) {
            best = d[i];
            best_i = i;
            *valley = run_min;
        }
    }
    return best_i;
}

int mw_levels_kde(const double *power_w, size_t n, mw_levels *out)
{
    levels_init(out);
    if (check_input(power_w, n, out)) return -1;
    out->bins = (int)mw_levels_hist_bins(n);
    double mn, mx;
    gsl_stats_minmax(&mn, &mx, power_w, 1, n);
    if (mx == mn) {
        one_level(out, mn, 0);
        note(out, "constant input (%.3f W): one level", mn);
        return 0;
    }
    double h = mw_levels_bandwidth_w(power_w, n);
    if (!(h > 0)) {
        note(out, "out of memory");
        return -1;
    }
    out->bandwidth_w = h;
    double lo = mn - GRID_PAD_H * h, hi = mx + GRID_PAD_H * h;
    double step = h / MW_LEVELS_GRID_PER_H, span = (hi - lo) / step;
    size_t m;
    if (span + 1 > (double)MW_LEVELS_GRID_MAX) {
        m = MW_LEVELS_GRID_MAX;
        step = (hi - lo) / (double)(m - 1);
    } else {
        m = (size_t)ceil(span) + 1;
    }
    double *d = malloc(m * sizeof *d);
    if (!d || mw_levels_kde_grid(power_w, n, h, lo, step, m, d)) {
        free(d);
        note(out, "out of memory");
        return -1;
    }
    size_t top = 0, nmax = 0;
    for (size_t i = 1; i + 1 < m; i++)
        if (is_max(d, i)) {
            nmax++;
            if (!top || d[i] > d[top]) top = i;
        }
    if (!top) { /* cannot happen with a padded grid; be safe */
        free(d);
        note(out, "the density has no maximum");
        return -1;
    }
    double vl = 0, vr = 0;
    size_t left = second_on_side(d, m, top, -1, &vl), right = second_on_side(d, m, top, +1, &vr);
    size_t second = left && (!right || d[left] >= d[right]) ? left : right;
    double top_w = refine_max(d, top, lo, step);
    if (!second) {
        one_level(out, top_w, 0);
        /* say why: the highest other maximum, whatever its dip */
        size_t other = 0;
        for (size_t i = 1; i + 1 < m; i++)
            if (i != top && is_max(d, i) && (!other || d[i] > d[other])) other = i;
        if (!other || nmax < 2)
            note(out, "unimodal: one maximum of the density, at %.3f W", top_w);
        else if (d[other] < MW_LEVELS_MIN_PEAK_RATIO * d[top])
            note(out,
                 "unimodal: mode at %.3f W; the next maximum (%.3f W) is %.1f %% of it, under "
                 "%.0f %%",
                 top_w, refine_max(d, other, lo, step), 100 * d[other] / d[top],
                 100 * MW_LEVELS_MIN_PEAK_RATIO);
        else
            note(out,
                 "unimodal: mode at %.3f W; the density does not dip %.0f %% between it and "
                 "the maximum at %.3f W",
                 top_w, 100 * MW_LEVELS_MIN_DIP, refine_max(d, other, lo, step));
        free(d);
        return 0;
    }
    double second_w = refine_max(d, second, lo, step);
    free(d);
    out->bimodal = 1;
    out->idle_w = fmin(top_w, second_w);
    out->work_w = fmax(top_w, second_w);
    double mid = 0.5 * (out->idle_w + out->work_w);
    size_t below = 0;
    for (size_t i = 0; i < n; i++)
        below += power_w[i] < mid;
    out->idle_weight = (double)below / (double)n;
    return 0;
}

/* ---- Gaussian mixture ----------------------------------------------------------------- */

typedef struct {
    const double *x; /* values (bin means when binned) */
    const double *c; /* counts, NULL = 1 each */
    const double *s; /* within-bin sums of squares, NULL = 0 */
    size_t n;        /* entries */
    double total;    /* samples */
} gmm_data;

typedef struct {
    double w[2], mu[2], var[2]; /* the two levels */
    double wb;                  /* weight of the uniform background (windows between levels) */
    double ll;
} gmm_fit;

/* One EM step from f (updated in place); returns the log-likelihood of f before the step
 * (without the constant -n/2 log 2 pi). lu: log of the background's density, -log(range). */
static double em_step(const gmm_data *D, gmm_fit *f, double var_floor, double lu)
{
    double lw[3], lv[2], W[3] = {0, 0, 0}, S[2] = {0, 0}, Q[2] = {0, 0}, ll = 0;
    for (int k = 0; k < 2; k++) {
        lw[k] = f->w[k] > 0 ? log(f->w[k]) : -INFINITY; /* weight 0: the component is off */
        lv[k] = 0.5 * log(f->var[k]);
    }
    /* the background in the same units as the Gaussians' log densities less 0.5 log 2 pi */
    lw[2] = f->wb > 0 ? log(f->wb) + lu + 0.5 * log(2 * M_PI) : -INFINITY;
    for (size_t i = 0; i < D->n; i++) {
        double x = D->x[i], c = D->c ? D->c[i] : 1, ss = D->s ? D->s[i] : 0;
        double lp[3], r[3];
        for (int k = 0; k < 2; k++) {
            double u = x - f->mu[k];
            lp[k] = lw[k] - lv[k] - 0.5 * (u * u + (ss > 0 ? ss / c : 0)) / f->var[k];
        }
        lp[2] = lw[2];
        double top = fmax(fmax(lp[0], lp[1]), lp[2]), sum = 0;
        for (int k = 0; k < 3; k++)
            sum += r[k] = lp[k] == top ? 1 : exp(lp[k] - top);
        for (int k = 0; k < 3; k++)
            r[k] /= sum;
        ll += c * (top + log(sum));
        for (int k = 0; k < 2; k++) {
            double u = x - f->mu[k];
            W[k] += c * r[k];
            S[k] += c * r[k] * x;
            Q[k] += r[k] * (c * u * u + ss);
        }
        W[2] += c * r[2];
    }
    for (int k = 0; k < 2; k++) {
        if (!(W[k] > 1e-9 * D->total)) { /* an emptied component: off, where it was */
            f->w[k] = 0;
            continue;
        }
        double mu = S[k] / W[k], dm = mu - f->mu[k];
        double var = Q[k] / W[k] - dm * dm;
        f->w[k] = W[k] / D->total;
        f->mu[k] = mu;
        f->var[k] = var > var_floor ? var : var_floor;
    }
    if (f->wb > 0) f->wb = W[2] / D->total > 1e-12 ? W[2] / D->total : 1e-12;
    return ll;
}

/* Start: split at the midpoint of two quantile values, moments of each side. 0 or -1 when
 * a side is empty. */
static int gmm_start(const gmm_data *D, double qa, double qb, double var_floor, gmm_fit *f)
{
    double mid = 0.5 * (qa + qb), W[2] = {0, 0}, S[2] = {0, 0}, Q[2] = {0, 0};
    for (size_t i = 0; i < D->n; i++) {
        int k = D->x[i] >= mid;
        double c = D->c ? D->c[i] : 1, x = D->x[i];
        W[k] += c;
        S[k] += c * x;
        Q[k] += c * x * x + (D->s ? D->s[i] : 0);
    }
    if (!(W[0] > 0) || !(W[1] > 0)) return -1;
    for (int k = 0; k < 2; k++) {
        f->w[k] = W[k] / D->total;
        f->mu[k] = S[k] / W[k];
        double var = Q[k] / W[k] - f->mu[k] * f->mu[k];
        f->var[k] = var > var_floor ? var : var_floor;
    }
    return 0;
}

/* EM from f for at most iters steps or until the log-likelihood per sample changes by less
 * than GMM_TOL. */
static void gmm_run(const gmm_data *D, gmm_fit *f, double var_floor, double lu, int iters)
{
    double prev = -INFINITY;
    for (int it = 0; it < iters; it++) {
        double ll = em_step(D, f, var_floor, lu);
        f->ll = ll;
        if (fabs(ll - prev) <= GMM_TOL * D->total) break;
        prev = ll;
    }
}

static double mix_pdf(const gmm_fit *f, double x)
{
    double s = 0;
    for (int k = 0; k < 2; k++) {
        double u = x - f->mu[k];
        s += f->w[k] * exp(-0.5 * u * u / f->var[k]) / sqrt(f->var[k]);
    }
    return s;
}

/* Two modes (they lie between the means; 2,001 points are looked at) when the mixture's
 * density dips between the means: some point lower than the
 * highest density on each side of it (by 1 %). A plateau counts as a dip — far apart, narrow
 * components leave only the flat background between them, which has no strict minimum. */
static int mix_bimodal(const gmm_fit *f)
{
    enum { P = 2001 };
    double a = f->mu[0], b = f->mu[1], y[P], right[P];
    if (!(b > a)) return 0;
    for (int i = 0; i < P; i++)
        y[i] = mix_pdf(f, a + (b - a) * i / (P - 1));
    right[P - 1] = y[P - 1];
    for (int i = P - 2; i >= 0; i--)
        right[i] = fmax(y[i], right[i + 1]);
    double left = y[0];
    for (int i = 1; i < P - 1; i++) {
        left = fmax(left, y[i]);
        if (y[i] < 0.99 * fmin(left, right[i])) return 1;
    }
    return 0;
}

/* EM's data above GMM_BIN_ABOVE samples: GMM_BINS equal bins over [mn, mx], each with its
 * count, its samples' mean and their sum of squares about it; empty bins dropped. The three
 * arrays are b[0..2] (the caller frees them). 0, or -1 out of memory. */
static int gmm_bin(const double *power_w, size_t n, double mn, double mx, double *b[3], gmm_data *D)
{
    double *bx = b[0] = calloc(GMM_BINS, sizeof *bx);
    double *bc = b[1] = calloc(GMM_BINS, sizeof *bc);
    double *bs = b[2] = calloc(GMM_BINS, sizeof *bs);
    if (!bx || !bc || !bs) return -1;
    double w = (mx - mn) / GMM_BINS;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((power_w[i] - mn) / w);
        k = k < GMM_BINS ? k : GMM_BINS - 1;
        bc[k] += 1;
        bx[k] += power_w[i];
    }
    for (size_t j = 0; j < GMM_BINS; j++)
        if (bc[j] > 0) bx[j] /= bc[j];
    for (size_t i = 0; i < n; i++) { /* sums of squares about each bin's mean */
        size_t k = (size_t)((power_w[i] - mn) / w);
        k = k < GMM_BINS ? k : GMM_BINS - 1;
        double u = power_w[i] - bx[k];
        bs[k] += u * u;
    }
    size_t k = 0; /* drop empty bins */
    for (size_t j = 0; j < GMM_BINS; j++)
        if (bc[j] > 0) {
            bx[k] = bx[j];
            bc[k] = bc[j];
            bs[k] = bs[j];
            k++;
        }
    *D = (gmm_data){.x = bx, .c = bc, .s = bs, .n = k, .total = (double)n};
    return 0;
}

/* The two-level fit: a short EM run from every quantile pair's start, the best one run to
 * convergence. Returns the number of starts (0: every quantile pair equal), or -1 out of
 * memory. */
static int gmm_two_levels(const gmm_data *D, const double *power_w, size_t n, double var_floor,
                          double lu, gmm_fit *best)
{
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return -1;
    static const double qs[][2] = {{0.25, 0.75}, {0.10, 0.90}, {0.02, 0.98}};
    *best = (gmm_fit){.ll = -INFINITY};
    int fits = 0;
    memcpy(tmp, power_w, n * sizeof *tmp); /* quantile7 reorders it, keeping its values */
    for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
        double qa = quantile7(tmp, n, qs[q][0]), qb = quantile7(tmp, n, qs[q][1]);
        gmm_fit f;
        if (!(qb > qa) || gmm_start(D, qa, qb, var_floor, &f)) continue;
        f.wb = GMM_BACKGROUND_START;
        f.w[0] *= 1 - f.wb;
        f.w[1] *= 1 - f.wb;
        gmm_run(D, &f, var_floor, lu, GMM_SHORT_ITER);
        if (!fits++ || f.ll > best->ll) *best = f;
    }
    if (fits) gmm_run(D, best, var_floor, lu, GMM_MAX_ITER);
    free(tmp);
    return fits;
}

/* out from the best two-level fit (fits > 0 starts) against the one-level model's BIC:
 * two levels only when both weigh enough, their mixture has two modes and its BIC is
 * lower; else one level at the samples' mean and sd, with the reason in out->note. */
static void gmm_choose(gmm_fit best, double bic1, double bic2, int fits, double mean, double sd,
                       mw_levels *out)
{
    if (best.mu[0] > best.mu[1]) {
        gmm_fit s = best;
        for (int k = 0; k < 2; k++) {
            best.w[k] = s.w[1 - k];
            best.mu[k] = s.mu[1 - k];
            best.var[k] = s.var[1 - k];
        }
    }
    double w_levels = best.w[0] + best.w[1];
    double wmin = fmin(best.w[0], best.w[1]) / w_levels;
    if (wmin < MW_LEVELS_MIN_WEIGHT || !mix_bimodal(&best) || bic1 <= bic2) {
        one_level(out, mean, sd);
        if (bic1 <= bic2 && fits)
            note(out,
                 "unimodal: one level fits as well (BIC %.1f against %.1f for two, at %.3f and "
                 "%.3f W)",
                 bic1, bic2, best.mu[0], best.mu[1]);
        else if (wmin < MW_LEVELS_MIN_WEIGHT)
            note(out, "unimodal: a component has weight %.4f (< %.2f); means %.3f, %.3f W", wmin,
                 MW_LEVELS_MIN_WEIGHT, best.mu[0], best.mu[1]);
        else
            note(out,
                 "unimodal: the components (%.3f W sd %.3f, %.3f W sd %.3f, weights %.2f/%.2f) "
                 "merge into one mode",
                 best.mu[0], sqrt(best.var[0]), best.mu[1], sqrt(best.var[1]), best.w[0] / w_levels,
                 best.w[1] / w_levels);
        return;
    }
    out->bimodal = 1;
    out->idle_w = best.mu[0];
    out->work_w = best.mu[1];
    out->idle_sd_w = sqrt(best.var[0]);
    out->work_sd_w = sqrt(best.var[1]);
    out->idle_weight = best.w[0] / w_levels;
}

int mw_levels_gmm(const double *power_w, size_t n, mw_levels *out)
{
    levels_init(out);
    if (check_input(power_w, n, out)) return -1;
    double mean = gsl_stats_mean(power_w, 1, n), sd = gsl_stats_sd_m(power_w, 1, n, mean);
    if (!(sd > 0)) {
        one_level(out, power_w[0], 0);
        note(out, "constant input (%.3f W): one level", power_w[0]);
        return 0;
    }
    double var_floor = fmax(1e-6, 1e-6 * sd * sd);
    gmm_data D = {.x = power_w, .n = n, .total = (double)n};
    double *bins[3] = {NULL, NULL, NULL}, mn, mx;
    gsl_stats_minmax(&mn, &mx, power_w, 1, n);
    gmm_fit best;
    int fits = -1;
    if (n <= GMM_BIN_ABOVE || gmm_bin(power_w, n, mn, mx, bins, &D) == 0)
        fits = gmm_two_levels(&D, power_w, n, var_floor, -log(mx - mn), &best);
    if (fits < 0) {
        for (int k = 0; k < 3; k++)
            free(bins[k]);
        note(out, "out of memory");
        return -1;
    }
    /* the one-level model: one Gaussian and the background */
    gmm_fit one = {.w = {1 - GMM_BACKGROUND_START, 0},
                   .mu = {mean, mean},
                   .var = {sd * sd, sd * sd},
                   .wb = GMM_BACKGROUND_START};
    gmm_run(&D, &one, var_floor, -log(mx - mn), GMM_MAX_ITER);
    for (int k = 0; k < 3; k++)
        free(bins[k]);
    /* BIC = -2 ll + (free parameters) ln n: 6 (two means, sds, a weight, the background's)
     * against 3 (mean, sd, the background's weight) */
    double bic2 = -2 * best.ll + 6 * log((double)n), bic1 = -2 * one.ll + 3 * log((double)n);
    if (!fits) { /* every quantile pair equal: (nearly) all samples on one value */
        one_level(out, mean, sd);
        note(out, "unimodal: the samples' quantiles coincide (%.3f W)", mean);
        return 0;
    }
    gmm_choose(best, bic1, bic2, fits, mean, sd, out);
    return 0;
}

/* ---- phase-labelled split -------------------------------------------------------------- */

int mw_levels_split(const double *power_w, const unsigned char *working, size_t n, mw_levels *out)
{
    levels_init(out);
    if (check_input(power_w, n, out)) return -1;
    if (!working) {
        note(out, "no labels");
        return -1;
    }
    /* two passes per set (mean, then sum of squares about it): no cancellation */
    double sum[2] = {0, 0}, mean[2] = {0, 0}, ss[2] = {0, 0};
    size_t cnt[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        int k = working[i] != 0;
        sum[k] += power_w[i];
        cnt[k]++;
    }
    for (int k = 0; k < 2; k++)
        mean[k] = cnt[k] ? sum[k] / (double)cnt[k] : 0;
    for (size_t i = 0; i < n; i++) {
        int k = working[i] != 0;
        double u = power_w[i] - mean[k];
        ss[k] += u * u;
    }
    double sd[2];
    for (int k = 0; k < 2; k++)
        sd[k] = cnt[k] > 1 ? sqrt(ss[k] / (double)(cnt[k] - 1)) : 0;
    if (!cnt[0] || !cnt[1]) {
        int k = cnt[1] ? 1 : 0;
        one_level(out, mean[k], sd[k]);
        note(out, "one level: no sample labelled %s", k ? "idle" : "working");
        return 0;
    }
    out->bimodal = 1;
    out->idle_w = mean[0];
    out->work_w = mean[1];
    out->idle_sd_w = sd[0];
    out->work_sd_w = sd[1];
    out->idle_weight = (double)cnt[0] / (double)n;
    return 0;
}
