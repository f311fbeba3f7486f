/* align — see align.h for the method. Inside: the shape is kept as a step function (sorted
 * breakpoints, the level after each, and the running integral at each), so the shape's
 * integral up to any t costs one lookup, which starts from the previous one's position
 * (windows are visited in time order, so a scan over all windows walks the breakpoints
 * once). Stage 1, the coarse search, correlates the mean-removed window powers with the
 * shape on a regular grid by GSL's real radix-2 FFT (zero-padded, so no wrap-around within
 * +-max offset); its peak is biased by up to about half a window because the plain
 * covariance is not normalised by the shifted shape's variance. Stage 2 therefore scans the
 * exact Pearson correlation (gsl_stats_correlation) at 1 ms over that peak +- (longest
 * window + 2 grid steps), moving the scan on while its maximum sits at the scan's edge. The
 * fit at the refined offset (gsl_fit_linear) gives base, gain, the residual variance and,
 * with the derivative of every window's shape mean with respect to the offset, the
 * standard error. */
#include "align.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>

#define ALIGN_MAX_GRID (1u << 21) /* cells of the FFT grid: 16 MiB for its two arrays */
#define ALIGN_GRID_PER_WINDOW 16  /* FFT grid cells per (mean) window length */
#define ALIGN_SCAN_PER_STEP 0.05  /* stage 2's first scan: one step per 50 ms of window */
#define ALIGN_SCAN_MAX_STEPS 5    /* ... of at most 5 ms */
#define ALIGN_MIN_WINDOWS 4
#define ALIGN_DRIFT_EDGES 4 /* edges each third needs for a drift estimate */
#define ALIGN_SHIFTS 39     /* shifted patterns of the significance test: p >= 1/40 */

/* ---- the shape: a step function ------------------------------------------------------ */

typedef struct {
    double *b;   /* breakpoints, ascending */
    double *lev; /* level on [b[k], b[k+1]); 0 before b[0], and from the last one on */
    double *cum; /* integral of the level from b[0] to b[k] */
    size_t n;
} align_shape;

typedef struct {
    double t;
    int step;
} align_event;

static int event_cmp(const void *a, const void *b)
{
    const align_event *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void shape_free(align_shape *sh)
{
    free(sh->b);
    free(sh->lev);
    free(sh->cum);
    memset(sh, 0, sizeof *sh);
}

/* The step function of events ev[0..ne) (sorted here), into sh; -1 when out of memory. */
static int shape_of_events(align_shape *sh, align_event *ev, size_t ne)
{
    memset(sh, 0, sizeof *sh);
    if (ne > 1) qsort(ev, ne, sizeof *ev, event_cmp);
    sh->b = malloc((ne + 1) * sizeof *sh->b);
    sh->lev = malloc((ne + 1) * sizeof *sh->lev);
    sh->cum = malloc((ne + 1) * sizeof *sh->cum);
    if (!sh->b || !sh->lev || !sh->cum) {
        shape_free(sh);
        return -1;
    }
    int level = 0, last = 0;
    for (size_t i = 0; i < ne;) {
        double t = ev[i].t;
        while (i < ne && ev[i].t == t)
            level += ev[i++].step;
        if (level == last) continue; /* a span ending where another begins */
        size_t k = sh->n++;
        sh->b[k] = t;
        sh->lev[k] = level;
        sh->cum[k] = k ? sh->cum[k - 1] + sh->lev[k - 1] * (t - sh->b[k - 1]) : 0;
        last = level;
    }
    return 0;
}

static int shape_build(align_shape *sh, const mw_align_span *sp, size_t n)
{
    memset(sh, 0, sizeof *sh);
    align_event *ev = malloc((2 * n + 1) * sizeof *ev);
    if (!ev) return -1;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(sp[i].end_s > sp[i].start_s) || !isfinite(sp[i].start_s) || !isfinite(sp[i].end_s))
            continue;
        ev[ne++] = (align_event){sp[i].start_s, 1};
        ev[ne++] = (align_event){sp[i].end_s, -1};
    }
    int rc = shape_of_events(sh, ev, ne);
    free(ev);
    return rc;
}

/* The shape on [t0, t0 + period) shifted by shift_s and wrapped around within it (0
 * outside): the "shifted pattern" of the significance test, with the same levels, edges
 * and autocorrelation as the pattern but no relation to the power. */
static int shape_wrapped(const align_shape *sh, double t0, double period, double shift_s,
                         align_shape *out)
{
    align_event *ev = malloc((4 * sh->n + 4) * sizeof *ev);
    if (!ev) return -1;
    size_t ne = 0;
    for (size_t k = 0; k < sh->n; k++) {
        double a = fmax(sh->b[k], t0), e = k + 1 < sh->n ? sh->b[k + 1] : t0 + period;
        e = fmin(e, t0 + period);
        int lev = (int)sh->lev[k];
        if (!(e > a) || !lev) continue;
        double a2 = t0 + fmod(a - t0 + shift_s, period), len = e - a;
        if (a2 < t0) a2 += period;
        if (a2 + len <= t0 + period) {
            ev[ne++] = (align_event){a2, lev};
            ev[ne++] = (align_event){a2 + len, -lev};
        } else { /* split at the wrap */
            ev[ne++] = (align_event){a2, lev};
            ev[ne++] = (align_event){t0 + period, -lev};
            ev[ne++] = (align_event){t0, lev};
            ev[ne++] = (align_event){t0 + (a2 + len - (t0 + period)), -lev};
        }
    }
    int rc = shape_of_events(out, ev, ne);
    free(ev);
    return rc;
}

/* The k with b[k] <= t < b[k+1] (k = n-1 past the last), or (size_t)-1 before b[0];
 * searched from hint, the previous answer. */
static size_t shape_find(const align_shape *sh, double t, size_t hint)
{
    if (!sh->n || t < sh->b[0]) return (size_t)-1;
    size_t k = hint < sh->n ? hint : 0;
    if (sh->b[k] <= t) {
        for (int i = 0; i < 8; i++) {
            if (k + 1 == sh->n || sh->b[k + 1] > t) return k;
            k++;
        }
        size_t lo = k, hi = sh->n; /* b[lo] <= t < b[hi] (hi = n: past the end) */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (sh->b[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
    size_t lo = 0, hi = k; /* b[lo] <= t < b[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sh->b[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Integral of the shape from -inf to t. */
static double shape_cum(const align_shape *sh, double t, size_t *hint)
{
    size_t k = shape_find(sh, t, *hint);
    if (k == (size_t)-1) return 0;
    *hint = k;
    return sh->cum[k] + sh->lev[k] * (t - sh->b[k]);
}

/* The shape's level at t. */
static double shape_level(const align_shape *sh, double t, size_t *hint)
{
    size_t k = shape_find(sh, t, *hint);
    if (k == (size_t)-1) return 0;
    *hint = k;
    return sh->lev[k];
}

/* ---- the fit at one offset ----------------------------------------------------------- */

typedef struct {
    const mw_align_window *w; /* sorted by t0 */
    size_t n;
    const double *p; /* powers, in the same order */
    const align_shape *sh;
    double *x;  /* the shape's mean over each shifted window */
    double *dx; /* its derivative with respect to the offset */
} align_ctx;

static void shape_means(const align_ctx *c, double d)
{
    size_t h0 = 0, h1 = 0;
    for (size_t i = 0; i < c->n; i++) {
        double a = c->w[i].t0_s - d, b = c->w[i].t1_s - d;
        c->x[i] = (shape_cum(c->sh, b, &h1) - shape_cum(c->sh, a, &h0)) / (b - a);
    }
}

/* Pearson r at offset d; -2 when the shifted shape is constant over the windows. */
static double correlation_at(const align_ctx *c, double d)
{
    shape_means(c, d);
    double first = c->x[0];
    size_t i = 1;
    while (i < c->n && c->x[i] == first)
        i++;
    if (i == c->n) return -2;
    double r = gsl_stats_correlation(c->x, 1, c->p, 1, c->n);
    return isfinite(r) ? r : -2;
}

/* ---- stage 1: coarse FFT cross-correlation ------------------------------------------- */

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}


/* m <- the circular cross-correlation of m with s (n a power of two): both transformed (GSL's
 * half-complex order), m x conj(s), transformed back; s is overwritten by its transform */
static void circular_xcorr(double *m, double *s, size_t n)
{
    gsl_fft_real_radix2_transform(m, 1, n);
    gsl_fft_real_radix2_transform(s, 1, n);
    m[0] *= s[0];
    m[n / 2] *= s[n / 2];
    for (size_t i = 1; i < n / 2; i++) {
        double a = m[i], b = m[n - i], cr = s[i], ci = s[n - i];
        m[i] = a * cr + b * ci;
        m[n - i] = b * cr - a * ci;
    }
    gsl_fft_halfcomplex_radix2_inverse(m, 1, n);
}

/* The offset (s) at the peak of the covariance of the windows' powers with the shifted
 * shape, on a grid of *grid_s; -1 when out of memory. */
static int coarse_peak(const align_ctx *c, double tmin, double tmax, double dmax, double lmean,
                       double *best, double *grid_s)
{
    double span = tmax - tmin + 2 * dmax;
    double h = fmax(MW_ALIGN_STEP_S, lmean / ALIGN_GRID_PER_WINDOW);
    if (span / h > ALIGN_MAX_GRID / 2 - 4) h = span / (ALIGN_MAX_GRID / 2 - 4);
    double g0 = tmin - dmax - h;
    size_t k_total = (size_t)ceil((tmax + dmax + h - g0) / h) + 2;
    size_t n = pow2_at_least(k_total + 1);
    double *m = calloc(n, sizeof *m), *s = calloc(n, sizeof *s);
    if (!m || !s) {
        free(m);
        free(s);
        return -1;
    }
    size_t hint = 0;
    double prev = shape_cum(c->sh, g0, &hint);
    for (size_t k = 0; k < k_total; k++) {
        double next = shape_cum(c->sh, g0 + (double)(k + 1) * h, &hint);
        s[k] = (next - prev) / h;
        prev = next;
    }
    double mean = gsl_stats_mean(c->p, 1, c->n);
    for (size_t i = 0; i < c->n; i++) {
        double a = (c->w[i].t0_s - g0) / h, b = (c->w[i].t1_s - g0) / h;
        double v = (c->p[i] - mean) / (b - a);
        for (size_t k = (size_t)a; k < k_total && (double)k < b; k++) {
            double lo = fmax(a, (double)k), hi = fmin(b, (double)k + 1);
            if (hi > lo) m[k] += v * (hi - lo);
        }
    }
    circular_xcorr(m, s, n);
    long jmax = (long)floor(dmax / h), jbest = 0;
    double rbest = -INFINITY;
    for (long j = -jmax; j <= jmax; j++) {
        double r = m[j >= 0 ? (size_t)j : n - (size_t)(-j)];
        if (r > rbest) {
            rbest = r;
            jbest = j;
        }
    }
    free(m);
    free(s);
    *best = (double)jbest * h;
    *grid_s = h;
    return 0;
}

/* ---- one estimate -------------------------------------------------------------------- */

static int window_cmp(const void *a, const void *b)
{
    const mw_align_window *x = a, *y = b;
    return x->t0_s < y->t0_s ? -1 : x->t0_s > y->t0_s;
}

static int fail(char *note, size_t len, int code, const char *fmt, double a, double b)
{
    if (len) snprintf(note, len, fmt, a, b);
    return code;
}

/* Stage 2: the exact correlation around the coarse peak dc (grid h), first every q ms (q =
 * 1 ms per 50 ms of window, at most 5), the scan moved on while its best is at its edge;
 * then every 1 ms within q ms of the best. *kbest is in MW_ALIGN_STEP_S steps, within
 * +-kmax_all; *rbest its correlation (< -1: none). */
static void fine_peak(const align_ctx *c, double dc, double h, double lmean, double lmax,
                      long kmax_all, long *kbest_out, double *rbest_out)
{
    const double step = MW_ALIGN_STEP_S;
    long q = (long)(lmean / ALIGN_SCAN_PER_STEP);
    if (q < 1) q = 1;
    if (q > ALIGN_SCAN_MAX_STEPS) q = ALIGN_SCAN_MAX_STEPS;
    long kmin_all = -kmax_all;
    long reach = (long)ceil((lmax + 2 * h) / step);
    long lo = (long)floor(dc / step) - reach, hi = (long)ceil(dc / step) + reach;
    long kbest = 0;
    double rbest = -3;
    for (int round = 0; round < 1000; round++) {
        if (lo < kmin_all) lo = kmin_all;
        if (hi > kmax_all) hi = kmax_all;
        long kb = lo, last = lo;
        double rb = -3;
        for (long k = lo; k <= hi; k += q) {
            double r = correlation_at(c, (double)k * step);
            if (r > rb) {
                rb = r;
                kb = k;
            }
            last = k;
        }
        kbest = kb;
        rbest = rb;
        if (kb == lo && lo > kmin_all) {
            hi = lo + q;
            lo -= reach;
        } else if (kb == last && last + q > hi && hi < kmax_all) {
            lo = kb - q;
            hi += reach;
        } else {
            break;
        }
    }
    for (long k = kbest - q + 1; k < kbest + q && q > 1; k++) {
        if (k < kmin_all || k > kmax_all || k == kbest) continue;
        double r = correlation_at(c, (double)k * step);
        if (r > rbest) {
            rbest = r;
            kbest = k;
        }
    }
    *kbest_out = kbest;
    *rbest_out = rbest;
}

/* The residuals' integrated autocorrelation time in windows (1 for independent noise):
 * 1 + 2 x the sum of their lag-k autocorrelations while positive (at most n/4 lags). The
 * least-squares error assumes independent windows; a slow wander of the power that the
 * pattern does not explain makes neighbouring windows alike, and the error grows by the
 * square root of this factor. */
static double residual_tau(const align_ctx *c, double c0, double c1)
{
    size_t n = c->n;
    double *e = malloc(n * sizeof *e);
    if (!e) return 1;
    double v = 0;
    for (size_t i = 0; i < n; i++) {
        e[i] = c->p[i] - (c0 + c1 * c->x[i]);
        v += e[i] * e[i];
    }
    double tau = 1;
    for (size_t k = 1; k <= n / 4 && v > 0; k++) {
        double a = 0;
        for (size_t i = 0; i + k < n; i++)
            a += e[i] * e[i + k];
        double rho = a / v;
        if (!(rho > 0)) break;
        tau += 2 * rho;
    }
    free(e);
    return tau;
}

/* The fit at offset d (rbest: the scan's best correlation, kept when the one at d is not
 * positive) and its standard error, from the derivative of every window's shape mean with
 * respect to the offset. 0, or MW_ALIGN_NO_PATTERN with the reason in note. */
static int fit_at(const align_ctx *c, double d, double rbest, size_t edges, double edge_sum,
                  mw_align_fit *fit, char *note, size_t notelen)
{
    const mw_align_window *w = c->w;
    size_t n = c->n;
    double r = correlation_at(c, d);
    if (r <= 0) r = rbest;
    size_t h0 = 0, h1 = 0;
    for (size_t i = 0; i < n; i++)
        c->dx[i] =
            (shape_level(c->sh, w[i].t0_s - d, &h0) - shape_level(c->sh, w[i].t1_s - d, &h1)) /
            (w[i].t1_s - w[i].t0_s);
    double c0, c1, cov00, cov01, cov11, rss;
    gsl_fit_linear(c->x, 1, c->p, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &rss);
    for (size_t i = 0; i < n; i++)
        c->dx[i] *= c1;
    double g0, g1, gss;
    gsl_fit_linear(c->x, 1, c->dx, 1, n, &g0, &g1, &cov00, &cov01, &cov11, &gss);
    if (!(gss > 0) || !isfinite(gss) || !isfinite(rss) || !(c1 > 0))
        return fail(note, notelen, MW_ALIGN_NO_PATTERN,
                    "the windows carry no information on the offset (%.0f edges, gain %.3g W)",
                    (double)edges, isfinite(c1) ? c1 : 0);
    double s2 = rss / (double)(n - 3);
    double tau = residual_tau(c, c0, c1);
    fit->offset_s = d;
    fit->sigma_s = sqrt(s2 / gss * tau);
    fit->tau = tau;
    fit->correlation = r;
    fit->base_w = c0;
    fit->gain_w = c1;
    fit->noise_w = sqrt(s2);
    fit->time_s = edge_sum / (double)edges;
    fit->windows = n;
    fit->edges = edges;
    if (!isfinite(fit->sigma_s)) fit->sigma_s = 0;
    return 0;
}

/* The best correlation of the windows with shape c->sh within +-dmax (stages 1 and 2): its
 * offset in steps and r (< -1: none). -1 when out of memory. */
static int search_peak(const align_ctx *c, double tmin, double tmax, double dmax, double lmean,
                       double lmax, long *kbest, double *rbest)
{
    double dc = 0, h = MW_ALIGN_STEP_S;
    if (coarse_peak(c, tmin, tmax, dmax, lmean, &dc, &h)) return -1;
    long kmax_all = (long)floor(dmax / MW_ALIGN_STEP_S + 1e-9);
    fine_peak(c, dc, h, lmean, lmax, kmax_all, kbest, rbest);
    return 0;
}

/* The circular cross-covariance of the mean-removed window powers with the shape on one
 * period [t0, t0 + period) (each wrapped around it), on a grid of n = 2^k cells of
 * period / n (about lmean / ALIGN_GRID_PER_WINDOW): m[j] for the shape shifted by j cells
 * (GSL's real radix-2 FFT). NULL when out of memory. */
static double *circular_xcov(const align_ctx *c, double t0, double period, double lmean,
                             size_t *n_out)
{
    double h0 = fmax(MW_ALIGN_STEP_S, lmean / ALIGN_GRID_PER_WINDOW);
    size_t want = (size_t)ceil(period / h0);
    if (want > ALIGN_MAX_GRID / 2) want = ALIGN_MAX_GRID / 2;
    size_t n = pow2_at_least(want < 2 ? 2 : want);
    double h = period / (double)n;
    double *m = calloc(n, sizeof *m), *sh = calloc(n, sizeof *sh);
    if (!m || !sh) {
        free(m);
        free(sh);
        return NULL;
    }
    size_t hint = 0;
    double prev = shape_cum(c->sh, t0, &hint);
    for (size_t k = 0; k < n; k++) {
        double next = shape_cum(c->sh, t0 + (double)(k + 1) * h, &hint);
        sh[k] = (next - prev) / h;
        prev = next;
    }
    double mean = gsl_stats_mean(c->p, 1, c->n);
    for (size_t i = 0; i < c->n; i++) {
        double a = (c->w[i].t0_s - t0) / h, b = (c->w[i].t1_s - t0) / h;
        double v = (c->p[i] - mean) / (b - a);
        for (long k = (long)floor(a); (double)k < b; k++) {
            double lo = fmax(a, (double)k), hi = fmin(b, (double)k + 1);
            long kk = ((k % (long)n) + (long)n) % (long)n;
            if (hi > lo) m[kk] += v * (hi - lo);
        }
    }
    circular_xcorr(m, sh, n);
    free(sh);
    *n_out = n;
    return m;
}

/* A shifted copy's best correlation near its coarse peak dc: scanned every lmean / 8 over
 * dc +- (lmax / 2 + lmean / 4) (the coarse peak's bias is up to half a window), then every
 * lmean / 32 around the best; within +-dmax. The full fine search is not needed: a copy's
 * correlation surface is as smooth as the pattern's, and its maximum is what counts. */
static double null_peak(const align_ctx *c, double dc, double lmean, double lmax, double dmax)
{
    double q = lmean / 8, best = -3, db = dc;
    for (double d = dc - lmax / 2 - 2 * q; d <= dc + lmax / 2 + 2 * q; d += q) {
        if (d < -dmax || d > dmax) continue;
        double r = correlation_at(c, d);
        if (r > best) best = r, db = d;
    }
    for (int i = -3; i <= 3; i++) {
        double d = db + i * q / 4;
        if (!i || d < -dmax || d > dmax) continue;
        double r = correlation_at(c, d);
        if (r > best) best = r;
    }
    return best;
}

/* The significance test: the same search for the best correlation within +-dmax, with the
 * pattern shifted around the windows' span by ALIGN_SHIFTS amounts from 2 dmax + 2 lmax to
 * the span less that (so that no search reaches the true match), each at least a window
 * from the next, into fit->null_r (the highest) and fit->p_value ((1 + shifts reaching robs)
 * / (1 + shifts)). A pattern the power really follows matches better at its offset than
 * anywhere when shifted; a weak or repetitive one matches shifted copies as well. One
 * circular cross-covariance gives every shifted copy's coarse peak; the exact correlation
 * is then scanned around each (fine_peak on the wrapped copy). 0, 1 when the span is too
 * short for it, -1 out of memory. */
static int significance(const align_ctx *c, double tmin, double tmax, double dmax, double lmean,
                        double lmax, double robs, mw_align_fit *fit)
{
    double period = tmax - tmin, smin = 2 * dmax + 2 * lmax;
    fit->null_r = -1;
    fit->p_value = 1;
    fit->shifts = 0;
    if (period - 2 * smin < (ALIGN_SHIFTS - 1) * lmax) return 1;
    size_t n;
    double *m = circular_xcov(c, tmin, period, lmean, &n);
    if (!m) return -1;
    double h = period / (double)n;
    size_t reach = 0;
    int rc = 0;
    for (int k = 0; k < ALIGN_SHIFTS && !rc; k++) {
        double shift = smin + (period - 2 * smin) * k / (ALIGN_SHIFTS - 1);
        /* the copy shifted by `shift`, searched at d: the circular lag shift + d */
        long j0 = lround((shift - dmax) / h), j1 = lround((shift + dmax) / h), jb = j0;
        double mb = -INFINITY;
        for (long j = j0; j <= j1; j++) {
            double v = m[(size_t)(((j % (long)n) + (long)n) % (long)n)];
            if (v > mb) mb = v, jb = j;
        }
        double dc = fmin(fmax((double)jb * h - shift, -dmax), dmax);
        align_shape sh;
        if (shape_wrapped(c->sh, tmin, period, shift, &sh)) {
            rc = -1;
            break;
        }
        align_ctx cs = *c;
        cs.sh = &sh;
        double rb = sh.n ? null_peak(&cs, dc, lmean, lmax, dmax) : -3;
        shape_free(&sh);
        if (rb > fit->null_r) fit->null_r = rb;
        if (rb >= robs) reach++;
        fit->shifts++;
    }
    free(m);
    if (rc) return rc;
    fit->p_value = (1.0 + (double)reach) / (1.0 + (double)fit->shifts);
    return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The correlation peak's width and the best match away from it: r is scanned over +-dmax
 * every lmean / 10 (at least 1 ms); the peak is the run of scan points around d1 whose r
 * is above halfway between r1 and the scan's median, widened by the longest window on each
 * side; *r2 and *d2 are the best point outside it (r2 < -1: none). */
static void second_peak(const align_ctx *c, double d1, double r1, double dmax, double lmean,
                        double lmax, double *d2, double *r2, double *width_s)
{
    double q = fmax(MW_ALIGN_STEP_S, lmean / 10);
    long m = (long)floor(dmax / q);
    size_t np = (size_t)(2 * m + 1);
    double *r = malloc(2 * np * sizeof *r);
    *r2 = -3;
    *d2 = 0;
    *width_s = 0;
    if (!r) return;
    for (long k = -m; k <= m; k++)
        r[k + m] = r[np + (size_t)(k + m)] = correlation_at(c, (double)k * q);
    qsort(r + np, np, sizeof *r, dbl_cmp);
    double half = (r1 + r[np + np / 2]) / 2;
    long k1 = lround(d1 / q), lo = k1, hi = k1;
    if (k1 < -m) k1 = lo = hi = -m;
    if (k1 > m) k1 = lo = hi = m;
    while (lo > -m && r[lo - 1 + m] > half)
        lo--;
    while (hi < m && r[hi + 1 + m] > half)
        hi++;
    *width_s = (double)(hi - lo) * q;
    double a = (double)lo * q - lmax, b = (double)hi * q + lmax;
    for (long k = -m; k <= m; k++) {
        double d = (double)k * q;
        if (d >= a && d <= b) continue;
        if (r[k + m] > *r2) {
            *r2 = r[k + m];
            *d2 = d;
        }
    }
    free(r);
}

/* 1 (note says why) when another offset, away from the peak, fits about as well: better
 * than any shifted pattern (so no chance match), and its Fisher z = atanh(r) within 3
 * standard errors of a difference of two (sqrt(2 / (n - 3))) of the peak's. A pattern that
 * repeats within the search range (a time-step loop) fits every whole period. */
static int ambiguous(const align_ctx *c, mw_align_fit *fit, double r1, double dmax, double lmean,
                     double lmax, char *note, size_t notelen)
{
    double d2, r2, width;
    second_peak(c, fit->offset_s, r1, dmax, lmean, lmax, &d2, &r2, &width);
    fit->peak_width_s = width;
    fit->second_r = r2 < -1 ? 0 : r2;
    fit->second_offset_s = d2;
    if (r2 < -1 || r2 <= fit->null_r) return 0; /* the rest is chance */
    double z1 = atanh(fmin(r1, 0.999999)), z2 = atanh(fmax(fmin(r2, 0.999999), -0.999999));
    double se = sqrt(2 / ((double)c->n - 3));
    if (z1 - z2 > 3 * se) return 0;
    if (notelen)
        snprintf(note, notelen,
                 "cannot tell: offsets %+.0f ms and %+.0f ms fit about as well (r %.3f and "
                 "%.3f); the pattern repeats within the search range",
                 fit->offset_s * 1e3, d2 * 1e3, r1, r2);
    return 1;
}

/* The fit's significance (significance, ambiguous): 0 and fit->significant, or
 * MW_ALIGN_NOT_SIGNIFICANT (or MW_ALIGN_NO_PEAK out of memory) with why in note. */
static int verdict(const align_ctx *c, double tmin, double tmax, double dmax, double lmean,
                   double lmax, double rbest, mw_align_fit *fit, char *note, size_t notelen)
{
    int sig = significance(c, tmin, tmax, dmax, lmean, lmax, rbest, fit);
    if (sig < 0) return fail(note, notelen, MW_ALIGN_NO_PEAK, "out of memory", 0, 0);
    if (sig > 0)
        return fail(note, notelen, MW_ALIGN_NOT_SIGNIFICANT,
                    "cannot tell: the windows span %.1f s, too short to test the match against "
                    "shifted patterns (%.1f s needed)",
                    tmax - tmin, 2 * (2 * dmax + 2 * lmax) + (ALIGN_SHIFTS - 1) * lmax);
    if (fit->p_value > MW_ALIGN_P_MAX) {
        if (notelen)
            snprintf(note, notelen,
                     "cannot tell: the power follows the pattern no better than shifted copies "
                     "of it (r %.3f at the best offset, up to %.3f for %zu shifted patterns)",
                     rbest, fit->null_r, fit->shifts);
        return MW_ALIGN_NOT_SIGNIFICANT;
    }
    if (ambiguous(c, fit, rbest, dmax, lmean, lmax, note, notelen)) return MW_ALIGN_NOT_SIGNIFICANT;
    fit->significant = 1;
    return 0;
}

/* The estimate over windows w (sorted by t0, finite, t1 > t0). */
static int estimate_sorted(const mw_align_window *w, size_t n, const align_shape *sh, double dmax,
                           mw_align_fit *fit, char *note, size_t notelen)
{
    memset(fit, 0, sizeof *fit);
    if (n < ALIGN_MIN_WINDOWS)
        return fail(note, notelen, MW_ALIGN_NO_PATTERN, "only %.0f windows (at least %.0f needed)",
                    (double)n, ALIGN_MIN_WINDOWS);
    double tmin = w[0].t0_s, tmax = w[0].t1_s, lmax = 0, lsum = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i].t1_s > tmax) tmax = w[i].t1_s;
        if (w[i].t1_s - w[i].t0_s > lmax) lmax = w[i].t1_s - w[i].t0_s;
        lsum += w[i].t1_s - w[i].t0_s;
    }
    double lmean = lsum / (double)n;
    size_t edges = 0;
    double edge_sum = 0;
    for (size_t k = 0; k < sh->n; k++)
        if (sh->b[k] >= tmin && sh->b[k] <= tmax) {
            edges++;
            edge_sum += sh->b[k];
        }
    if (!edges)
        return fail(note, notelen, MW_ALIGN_NO_PATTERN,
                    "no busy phase begins or ends within the measured windows (%.3f s to %.3f s)",
                    tmin, tmax);

    double *buf = malloc(3 * n * sizeof *buf);
    if (!buf) return fail(note, notelen, MW_ALIGN_NO_PEAK, "out of memory", 0, 0);
    align_ctx c = {.w = w, .n = n, .p = buf, .sh = sh, .x = buf + n, .dx = buf + 2 * n};
    for (size_t i = 0; i < n; i++)
        buf[i] = w[i].power_w;
    int rc = 0;
    const double step = MW_ALIGN_STEP_S;
    long kmax_all = (long)floor(dmax / step + 1e-9), kbest;
    double rbest;
    if (search_peak(&c, tmin, tmax, dmax, lmean, lmax, &kbest, &rbest)) {
        rc = fail(note, notelen, MW_ALIGN_NO_PEAK, "out of memory", 0, 0);
        goto out;
    }
    if (rbest <= 0) {
        rc = fail(note, notelen, MW_ALIGN_NO_PEAK,
                  "the power does not follow the pattern (best correlation %.3f within +-%.0f ms)",
                  rbest < -1 ? 0 : rbest, dmax * 1e3);
        goto out;
    }
    if (kbest <= -kmax_all || kbest >= kmax_all) {
        rc = fail(note, notelen, MW_ALIGN_NO_PEAK,
                  "the best match is at the edge of the search range (%+.0f ms of +-%.0f ms)",
                  (double)kbest * step * 1e3, dmax * 1e3);
        goto out;
    }
    /* refine: the parabola through the best point and its neighbours */
    double rm = correlation_at(&c, (double)(kbest - 1) * step);
    double rp = correlation_at(&c, (double)(kbest + 1) * step);
    double den = rm - 2 * rbest + rp, delta = 0;
    if (den < 0 && rm > -2 && rp > -2) delta = 0.5 * (rm - rp) / den;
    if (delta > 0.5) delta = 0.5;
    if (delta < -0.5) delta = -0.5;
    rc = fit_at(&c, ((double)kbest + delta) * step, rbest, edges, edge_sum, fit, note, notelen);
    if (!rc) rc = verdict(&c, tmin, tmax, dmax, lmean, lmax, rbest, fit, note, notelen);
out:
    free(buf);
    return rc;
}

/* Sorted copy of the usable windows (finite, t1 > t0). */
static mw_align_window *sorted_windows(const mw_align_window *w, size_t nw, size_t *n)
{
    mw_align_window *s = malloc((nw ? nw : 1) * sizeof *s);
    if (!s) return NULL;
    *n = 0;
    for (size_t i = 0; i < nw; i++)
        if (isfinite(w[i].t0_s) && isfinite(w[i].t1_s) && isfinite(w[i].power_w) &&
            w[i].t1_s > w[i].t0_s)
            s[(*n)++] = w[i];
    if (*n > 1) qsort(s, *n, sizeof *s, window_cmp);
    return s;
}

int mw_align_offset(const mw_align_window *w, size_t nw, const mw_align_span *busy, size_t nbusy,
                    double max_offset_s, mw_align_fit *fit, char *note, size_t notelen)
{
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (notelen) note[0] = 0;
    if (!(max_offset_s > 0)) max_offset_s = MW_ALIGN_MAX_OFFSET_S;
    align_shape sh;
    size_t n = 0;
    mw_align_window *s = sorted_windows(w, nw, &n);
    int rc;
    if (!s || shape_build(&sh, busy, nbusy)) {
        memset(fit, 0, sizeof *fit);
        rc = fail(note, notelen, MW_ALIGN_NO_PEAK, "out of memory", 0, 0);
    } else {
        rc = estimate_sorted(s, n, &sh, max_offset_s, fit, note, notelen);
        shape_free(&sh);
    }
    free(s);
    gsl_set_error_handler(old);
    return rc;
}

int mw_align_estimate(const mw_align_window *w, size_t nw, const mw_align_span *busy, size_t nbusy,
                      double max_offset_s, mw_align_result *out)
{
    memset(out, 0, sizeof *out);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (!(max_offset_s > 0)) max_offset_s = MW_ALIGN_MAX_OFFSET_S;
    align_shape sh;
    size_t n = 0;
    mw_align_window *s = sorted_windows(w, nw, &n);
    int rc;
    if (!s || shape_build(&sh, busy, nbusy)) {
        free(s);
        gsl_set_error_handler(old);
        snprintf(out->note, sizeof out->note, "out of memory");
        return MW_ALIGN_NO_PEAK;
    }
    rc = estimate_sorted(s, n, &sh, max_offset_s, &out->all, out->note, sizeof out->note);
    if (rc == 0) {
        /* drift: the first and the last third of the pattern's edges within the windows */
        double tmin = s[0].t0_s, tmax = s[0].t1_s;
        for (size_t i = 0; i < n; i++)
            if (s[i].t1_s > tmax) tmax = s[i].t1_s;
        double ef = INFINITY, el = -INFINITY;
        for (size_t k = 0; k < sh.n; k++)
            if (sh.b[k] >= tmin && sh.b[k] <= tmax) {
                ef = fmin(ef, sh.b[k]);
                el = fmax(el, sh.b[k]);
            }
        double cut1 = ef + (el - ef) / 3, cut2 = el - (el - ef) / 3;
        size_t e1 = 0, e2 = 0, n1 = 0, i2 = n;
        for (size_t k = 0; k < sh.n; k++) {
            if (sh.b[k] >= tmin && sh.b[k] < cut1) e1++;
            if (sh.b[k] > cut2 && sh.b[k] <= tmax) e2++;
        }
        while (n1 < n && s[n1].t0_s < cut1)
            n1++;
        while (i2 > 0 && s[i2 - 1].t1_s > cut2)
            i2--;
        char note[200] = "the start's estimate is not after the end's";
        const char *where;
        if (e1 < ALIGN_DRIFT_EDGES || e2 < ALIGN_DRIFT_EDGES) {
            snprintf(out->note, sizeof out->note,
                     "no drift: %zu and %zu edges in the first and last third of the pattern "
                     "(%d each needed)",
                     e1, e2, ALIGN_DRIFT_EDGES);
        } else if ((where = "start",
                    estimate_sorted(s, n1, &sh, max_offset_s, &out->head, note, sizeof note)) ||
                   (where = "end", estimate_sorted(s + i2, n - i2, &sh, max_offset_s, &out->tail,
                                                   note, sizeof note)) ||
                   (where = "both ends", !(out->tail.time_s > out->head.time_s))) {
            /* a drift only from two ends each significant on its own */
            snprintf(out->note, sizeof out->note, "no drift: at the %s of the pattern, %s", where,
                     note);
            memset(&out->head, 0, sizeof out->head);
            memset(&out->tail, 0, sizeof out->tail);
        } else {
            double dt = out->tail.time_s - out->head.time_s;
            out->have_drift = 1;
            out->drift_ppm = (out->tail.offset_s - out->head.offset_s) / dt * 1e6;
            out->drift_sigma_ppm = hypot(out->tail.sigma_s, out->head.sigma_s) / dt * 1e6;
        }
    }
    shape_free(&sh);
    free(s);
    gsl_set_error_handler(old);
    return rc;
}

static int span_cmp(const void *a, const void *b)
{
    const mw_align_span *x = a, *y = b;
    return x->start_s < y->start_s ? -1 : x->start_s > y->start_s;
}

size_t mw_align_merge(mw_align_span *s, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].end_s > s[i].start_s) s[m++] = s[i];
    if (m > 1) qsort(s, m, sizeof *s, span_cmp);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && s[i].start_s <= s[k - 1].end_s) {
            if (s[i].end_s > s[k - 1].end_s) s[k - 1].end_s = s[i].end_s;
        } else {
            s[k++] = s[i];
        }
    }
    return k;
}
