/* lbopa — Khaleghzadeh et al.'s bi-objective workload distribution; see lbopa.h.
 *
 * Design. The devices are ranked once by b decreasing (the paper's "without loss of
 * generality b_0 >= b_1 >= ... >= b_{k-1}", §4). LBOPA (Algorithm 1, lines 3-7) needs, for
 * every rank r, t_r = min_X max_{j>=r} f_j(x_j) over splits of n among ranks r..k-1. The
 * paper leaves this min-max problem to "existing polynomial algorithms" (refs 29, 30); for
 * continuous strictly increasing f_j with f_j(0) = 0 the optimum is the load-balanced split,
 * all devices finishing together, so t_r is the root of h(t) = sum_{j>=r} f_j^{-1}(t) - n,
 * increasing in t, found here by Brent's method (gsl_root_fsolver_brent) on [0, min_j
 * f_j(n)]. f_j^{-1} is exact for linear and piecewise-linear f (a binary search over the
 * points) and Brent's method for callbacks; mw_lbopa_finv_brent is the Brent inverse for every
 * kind, which the tests compare with the closed forms. e_r is line 5's formula and the curve
 * between points r and r+1 is line 9's Pf(t) = b_r n - sum_{j>r} (b_r - b_j) f_j^{-1}(t),
 * evaluated exactly wherever asked rather than stored. Cost: k Brent solves of O(k) each
 * iteration, O(k^2 log(1/eps)) — below the paper's O(k^3 log2 n) bound for a general
 * min-max solver (Theorem 2).
 *
 * Deviations from the text, each said where it is done: trailing segments whose devices all
 * share one b are flat (same energy, more time: dominated) and are dropped; PARTITION's
 * comparisons take a relative tolerance of 1e-9 n so a t computed as a front end-point is
 * accepted; LBOPA-TE starts its running minimum at the total energy of the performance-
 * optimal point, where Algorithm 3 line 8 as printed starts it at the right end of the first
 * segment (which would keep a piece whose total energy exceeds that of t_min when the first
 * segment rises), and cuts a piece exactly at that minimum rather than at emin - epsilon; it
 * works on exactly linear pieces (segments cut at the kinks of f_j^{-1}) where the paper
 * treats each segment as one line. */
#include "lbopa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#define CALLBACK_PIECES 64

/* ---- root finding ---------------------------------------------------------------------- */

typedef struct {
    double (*fn)(double, void *);
    void *p;
    int failed;
} root_ctx;

/* A root of fn in [lo, hi] where flo = fn(lo) and fhi = fn(hi) differ in sign (or one is 0),
 * by gsl_root_fsolver_brent, to about 1e-14 relative. */
static int brent(double (*fn)(double, void *), void *p, double lo, double hi, double flo,
                 double fhi, double *root)
{
    if (!isfinite(flo) || !isfinite(fhi)) return -1;
    if (flo == 0) {
        *root = lo;
        return 0;
    }
    if (fhi == 0) {
        *root = hi;
        return 0;
    }
    if ((flo < 0) == (fhi < 0)) return -1;
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s) return -1;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_function F = {fn, p};
    int rc = -1;
    if (gsl_root_fsolver_set(s, &F, lo, hi) == GSL_SUCCESS) {
        rc = 0;
        for (int it = 0; it < 300; it++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS) {
                rc = -1;
                break;
            }
            double a = gsl_root_fsolver_x_lower(s), b = gsl_root_fsolver_x_upper(s);
            if (a == b || gsl_root_test_interval(a, b, 1e-300, 1e-14) == GSL_SUCCESS) break;
        }
        *root = gsl_root_fsolver_root(s);
    }
    gsl_set_error_handler(old);
    gsl_root_fsolver_free(s);
    return rc == 0 && isfinite(*root) ? 0 : -1;
}

/* ---- time functions -------------------------------------------------------------------- */

double mw_lbopa_f_s(const mw_lbopa_device *d, double x)
{
    if (!(x > 0)) x = 0;
    switch (d->kind) {
    case MW_LBOPA_F_LINEAR:
        return d->a_s_per_unit * x;
    case MW_LBOPA_F_PWL: {
        const double *px = d->x_units, *pt = d->t_s;
        size_t n = d->npoints;
        if (x <= px[0]) return pt[0] * x / px[0];
        if (x >= px[n - 1]) { /* last piece, extended */
            double x0 = n > 1 ? px[n - 2] : 0, t0 = n > 1 ? pt[n - 2] : 0;
            return pt[n - 1] + (pt[n - 1] - t0) / (px[n - 1] - x0) * (x - px[n - 1]);
        }
        size_t lo = 0, hi = n - 1; /* px[lo] <= x < px[hi] */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (px[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
        return pt[lo] + (pt[hi] - pt[lo]) * (x - px[lo]) / (px[hi] - px[lo]);
    }
    case MW_LBOPA_F_CALLBACK:
        return d->f_s(x, d->ctx);
    }
    return 0;
}

typedef struct {
    const mw_lbopa_device *d;
    double t;
} finv_ctx;

static double finv_residual(double x, void *p)
{
    const finv_ctx *c = p;
    return mw_lbopa_f_s(c->d, x) - c->t;
}

int mw_lbopa_finv_brent(const mw_lbopa_device *d, double t_s, double *x_units)
{
    if (!(t_s >= 0) || !isfinite(t_s)) return -1;
    finv_ctx c = {d, t_s};
    double f0 = finv_residual(0, &c);
    if (f0 >= 0) { /* t <= f(0): no work fits */
        *x_units = 0;
        return 0;
    }
    double hi = 1, fhi;
    while ((fhi = finv_residual(hi, &c)) < 0) {
        if (!isfinite(fhi) || hi > 1e300) return -1;
        hi *= 2;
    }
    return brent(finv_residual, &c, hi > 1 ? hi / 2 : 0, hi,
                 hi > 1 ? finv_residual(hi / 2, &c) : f0, fhi, x_units);
}

int mw_lbopa_finv(const mw_lbopa_device *d, double t, double *x_units)
{
    if (!(t >= 0) || !isfinite(t)) return -1;
    switch (d->kind) {
    case MW_LBOPA_F_LINEAR:
        *x_units = t / d->a_s_per_unit;
        return 0;
    case MW_LBOPA_F_PWL: {
        const double *px = d->x_units, *pt = d->t_s;
        size_t n = d->npoints;
        if (t <= pt[0]) {
            *x_units = px[0] * t / pt[0];
        } else if (t >= pt[n - 1]) {
            double x0 = n > 1 ? px[n - 2] : 0, t0 = n > 1 ? pt[n - 2] : 0;
            *x_units = px[n - 1] + (px[n - 1] - x0) / (pt[n - 1] - t0) * (t - pt[n - 1]);
        } else {
            size_t lo = 0, hi = n - 1;
            while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (pt[mid] <= t)
                    lo = mid;
                else
                    hi = mid;
            }
            *x_units = px[lo] + (px[hi] - px[lo]) * (t - pt[lo]) / (pt[hi] - pt[lo]);
        }
        return 0;
    }
    case MW_LBOPA_F_CALLBACK:
        return mw_lbopa_finv_brent(d, t, x_units);
    }
    return -1;
}

int mw_lbopa_device_ok(const mw_lbopa_device *d)
{
    if (!d || !(d->b_J_per_unit > 0) || !isfinite(d->b_J_per_unit)) return -1;
    switch (d->kind) {
    case MW_LBOPA_F_LINEAR:
        return d->a_s_per_unit > 0 && isfinite(d->a_s_per_unit) ? 0 : -1;
    case MW_LBOPA_F_PWL:
        if (!d->x_units || !d->t_s || d->npoints < 1) return -1;
        for (size_t j = 0; j < d->npoints; j++) {
            double px = j ? d->x_units[j - 1] : 0, pt = j ? d->t_s[j - 1] : 0;
            if (!isfinite(d->x_units[j]) || !isfinite(d->t_s[j]) || !(d->x_units[j] > px) ||
                !(d->t_s[j] > pt))
                return -1;
        }
        return 0;
    case MW_LBOPA_F_CALLBACK:
        return d->f_s ? 0 : -1;
    }
    return -1;
}

double mw_lbopa_T_s(const mw_lbopa_device *dev, int k, const double *x)
{
    double t = 0;
    for (int i = 0; i < k; i++)
        if (x[i] > 0) t = fmax(t, mw_lbopa_f_s(&dev[i], x[i]));
    return t;
}

double mw_lbopa_E_J(const mw_lbopa_device *dev, int k, const double *x)
{
    double e = 0;
    for (int i = 0; i < k; i++)
        e += dev[i].b_J_per_unit * x[i];
    return e;
}

/* ---- Algorithm 1 line 4: the balanced time --------------------------------------------- */

typedef struct {
    const mw_lbopa_device *dev;
    const int *idx;
    int m;
    double n;
    int failed;
} bal_ctx;

static double bal_residual(double t, void *p)
{
    bal_ctx *c = p;
    double s = 0;
    for (int j = 0; j < c->m; j++) {
        double x;
        if (mw_lbopa_finv(&c->dev[c->idx[j]], t, &x)) {
            c->failed = 1;
            return 0;
        }
        s += x;
    }
    return s - c->n;
}

int mw_lbopa_balance_s(const mw_lbopa_device *dev, const int *idx, int m, double n_units,
                       double *t_s)
{
    if (!dev || !idx || m < 1 || !(n_units > 0) || !isfinite(n_units)) return -1;
    /* everything on one device j finishes at f_j(n): the balanced time is at most the least */
    double hi = INFINITY;
    for (int j = 0; j < m; j++)
        hi = fmin(hi, mw_lbopa_f_s(&dev[idx[j]], n_units));
    if (!isfinite(hi) || !(hi > 0)) return -1;
    if (m == 1) {
        *t_s = hi;
        return 0;
    }
    bal_ctx c = {dev, idx, m, n_units, 0};
    double fhi = bal_residual(hi, &c);
    if (fhi < 0) fhi = 0; /* f^{-1}(f(n)) a rounding error below n: hi is the root */
    double flo = bal_residual(0, &c);
    int rc = brent(bal_residual, &c, 0, hi, flo, fhi, t_s);
    return rc || c.failed ? -1 : 0;
}

/* ---- Algorithm 1: the front ------------------------------------------------------------ */

void mw_pareto_front_free(mw_pareto_front *f)
{
    if (!f) return;
    free(f->rank);
    free(f->t_s);
    free(f->e_J);
    memset(f, 0, sizeof *f);
}

/* Pf on segment s: b_s n - sum_{j>s} (b_s - b_j) f_j^{-1}(t) (line 5 / line 9). */
static int pf_seg(const mw_pareto_front *f, int s, double t, double *e)
{
    const mw_lbopa_device *d = f->dev;
    double bs = d[f->rank[s]].b_J_per_unit, sum = bs * f->n_units;
    for (int j = s + 1; j < f->k; j++) {
        double x;
        if (mw_lbopa_finv(&d[f->rank[j]], t, &x)) return -1;
        sum -= (bs - d[f->rank[j]].b_J_per_unit) * x;
    }
    *e = sum;
    return 0;
}

int mw_lbopa_front(const mw_lbopa_device *dev, int k, double n_units, mw_pareto_front *out)
{
    memset(out, 0, sizeof *out);
    if (!dev || k < 1 || !(n_units > 0) || !isfinite(n_units)) return -1;
    for (int i = 0; i < k; i++)
        if (mw_lbopa_device_ok(&dev[i])) return -1;
    out->k = k;
    out->n_units = n_units;
    out->dev = dev;
    out->rank = malloc((size_t)k * sizeof *out->rank);
    out->t_s = malloc((size_t)k * sizeof *out->t_s);
    out->e_J = malloc((size_t)k * sizeof *out->e_J);
    if (!out->rank || !out->t_s || !out->e_J) goto fail;
    /* rank by b decreasing, stable (insertion sort) */
    for (int i = 0; i < k; i++) {
        int j = i;
        while (j > 0 && dev[out->rank[j - 1]].b_J_per_unit < dev[i].b_J_per_unit) {
            out->rank[j] = out->rank[j - 1];
            j--;
        }
        out->rank[j] = i;
    }
    /* lines 3-7 */
    for (int r = 0; r < k; r++) {
        if (mw_lbopa_balance_s(dev, out->rank + r, k - r, n_units, &out->t_s[r])) goto fail;
        if (pf_seg(out, r, out->t_s[r], &out->e_J[r])) goto fail;
    }
    /* drop the trailing flat segments: ranks s..k-1 share one b */
    out->nseg = k - 1;
    while (out->nseg > 0 &&
           dev[out->rank[out->nseg - 1]].b_J_per_unit == dev[out->rank[k - 1]].b_J_per_unit)
        out->nseg--;
    return 0;
fail:
    mw_pareto_front_free(out);
    return -1;
}

static double tol_t(const mw_pareto_front *f)
{
    return 1e-12 * f->t_s[f->nseg] + 1e-300;
}

int mw_pareto_segment(const mw_pareto_front *f, double t)
{
    if (!f || !f->rank || !isfinite(t)) return -1;
    double tol = tol_t(f);
    if (t < f->t_s[0] - tol || t > f->t_s[f->nseg] + tol) return -1;
    for (int s = 0; s < f->nseg; s++)
        if (t <= f->t_s[s + 1]) return s;
    return f->nseg > 0 ? f->nseg - 1 : 0;
}

int mw_pareto_energy_J(const mw_pareto_front *f, double t, double *e_J)
{
    int s = mw_pareto_segment(f, t);
    if (s < 0) return -1;
    if (f->nseg == 0) { /* one point: the front is (t_0, e_0) */
        *e_J = f->e_J[0];
        return 0;
    }
    return pf_seg(f, s, t, e_J);
}

typedef struct {
    const mw_pareto_front *f;
    int s;
    double e;
    int failed;
} inv_e_ctx;

static double inv_e_residual(double t, void *p)
{
    inv_e_ctx *c = p;
    double e;
    if (pf_seg(c->f, c->s, t, &e)) {
        c->failed = 1;
        return 0;
    }
    return e - c->e;
}

int mw_pareto_time_for_energy_s(const mw_pareto_front *f, double e_J, double *t_s)
{
    if (!f || !f->rank || !isfinite(e_J)) return -1;
    double emin = f->e_J[f->nseg], tol = 1e-12 * fabs(f->e_J[0]);
    if (e_J >= f->e_J[0]) {
        *t_s = f->t_s[0];
        return 0;
    }
    if (e_J < emin - tol) return -1;
    if (e_J <= emin) {
        *t_s = f->t_s[f->nseg];
        return 0;
    }
    for (int s = 0; s < f->nseg; s++) {
        if (e_J >= f->e_J[s + 1]) {
            inv_e_ctx c = {f, s, e_J, 0};
            int rc = brent(inv_e_residual, &c, f->t_s[s], f->t_s[s + 1], f->e_J[s] - e_J,
                           f->e_J[s + 1] - e_J, t_s);
            return rc || c.failed ? -1 : 0;
        }
    }
    return -1;
}

/* ---- Algorithm 2: PARTITION ------------------------------------------------------------ */

int mw_lbopa_partition(const mw_pareto_front *f, double t, double *x_units)
{
    if (!x_units || mw_pareto_segment(f, t) < 0) return -1;
    int k = f->k;
    double n = f->n_units, tol = 1e-9 * n, sum = 0;
    /* line 2: every device works all of t */
    for (int r = 0; r < k; r++) {
        if (mw_lbopa_finv(&f->dev[f->rank[r]], t, &x_units[f->rank[r]])) return -1;
        sum += x_units[f->rank[r]];
    }
    double nplus = sum - n;      /* line 3 */
    if (nplus < -tol) return -1; /* line 4: t too small for n */
    /* lines 5-15: take the excess off the most expensive devices first */
    int i = 0;
    while (nplus > 0 && i < k - 1) {
        double *xi = &x_units[f->rank[i]];
        if (*xi >= nplus) {
            *xi -= nplus;
            nplus = 0;
        } else {
            nplus -= *xi;
            *xi = 0;
            i++;
        }
    }
    if (nplus > tol) return -1; /* line 16: t too large for n */
    for (int r = 0; r < k; r++) /* rounding residue of the subtraction (line 8) */
        if (fabs(x_units[r]) <= 1e-12 * n) x_units[r] = 0;
    return 0;
}

int mw_lbopa_round(const mw_lbopa_device *dev, int k, const double *x, long long n, long long *xi)
{
    if (!dev || !x || !xi || k < 1 || n < 0) return -1;
    double sum = 0;
    for (int i = 0; i < k; i++) {
        if (!isfinite(x[i]) || x[i] < -1e-9 * (double)(n + 1)) return -1;
        sum += x[i];
    }
    if (fabs(sum - (double)n) > 1e-6 * fmax(1, (double)n)) return -1;
    int *ord = malloc((size_t)k * sizeof *ord);
    double *frac = malloc((size_t)k * sizeof *frac);
    if (!ord || !frac) {
        free(ord);
        free(frac);
        return -1;
    }
    long long floors = 0;
    for (int i = 0; i < k; i++) {
        double v = x[i] > 0 ? x[i] : 0, fl = floor(v);
        xi[i] = (long long)fl;
        frac[i] = v - fl;
        floors += xi[i];
    }
    /* order: fraction decreasing, then b increasing, then index (insertion sort, stable) */
    for (int i = 0; i < k; i++) {
        int j = i;
        while (j > 0) {
            int p = ord[j - 1];
            int before = frac[i] > frac[p] ||
                         (frac[i] == frac[p] && dev[i].b_J_per_unit < dev[p].b_J_per_unit);
            if (!before) break;
            ord[j] = p;
            j--;
        }
        ord[j] = i;
    }
    long long rem = n - floors;
    int rc = 0;
    if (rem < 0 || rem > k) {
        rc = -1;
    } else {
        for (long long r = 0; r < rem; r++)
            xi[ord[r]]++;
    }
    free(ord);
    free(frac);
    return rc;
}

/* ---- Algorithm 3: LBOPA-TE ------------------------------------------------------------- */

void mw_pareto_te_free(mw_pareto_te *te)
{
    if (!te) return;
    free(te->piece);
    memset(te, 0, sizeof *te);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The times cutting segment s into exactly linear pieces (ends included), sorted; *m their
 * number. Kinks of f_j^{-1}, j > s: a piecewise-linear f's point times. */
static double *segment_cuts(const mw_pareto_front *f, int s, int *m)
{
    double t0 = f->t_s[s], t1 = f->t_s[s + 1];
    size_t cap = 2;
    for (int j = s + 1; j < f->k; j++) {
        const mw_lbopa_device *d = &f->dev[f->rank[j]];
        cap += d->kind == MW_LBOPA_F_PWL        ? d->npoints
               : d->kind == MW_LBOPA_F_CALLBACK ? CALLBACK_PIECES
                                                : 0;
    }
    double *c = malloc(cap * sizeof *c);
    if (!c) return NULL;
    size_t n = 0;
    c[n++] = t0;
    int any_callback = 0;
    for (int j = s + 1; j < f->k; j++) {
        const mw_lbopa_device *d = &f->dev[f->rank[j]];
        if (d->kind == MW_LBOPA_F_PWL) {
            for (size_t p = 0; p < d->npoints; p++)
                if (d->t_s[p] > t0 && d->t_s[p] < t1) c[n++] = d->t_s[p];
        } else if (d->kind == MW_LBOPA_F_CALLBACK) {
            any_callback = 1;
        }
    }
    if (any_callback)
        for (int p = 1; p < CALLBACK_PIECES; p++)
            c[n++] = t0 + (t1 - t0) * p / CALLBACK_PIECES;
    c[n++] = t1;
    qsort(c, n, sizeof *c, cmp_double);
    size_t u = 0; /* unique */
    for (size_t i = 0; i < n; i++)
        if (!u || c[i] > c[u - 1]) c[u++] = c[i];
    *m = (int)u;
    return c;
}

int mw_lbopa_te(const mw_pareto_front *f, double ps_W, mw_pareto_te *out)
{
    memset(out, 0, sizeof *out);
    if (!f || !f->rank || !(ps_W >= 0) || !isfinite(ps_W)) return -1;
    out->ps_W = ps_W;
    out->tmin_s = f->t_s[0];
    out->emax_J = f->e_J[0] + ps_W * f->t_s[0]; /* line 9: the performance-optimal point */
    double emin = out->emax_J; /* see the note at the top: line 8 as printed uses Stmp[0][3] */
    int cap = 0;
    for (int s = 0; s < f->nseg; s++) {
        int m;
        double *c = segment_cuts(f, s, &m);
        if (!c) goto fail;
        for (int p = 0; p + 1 < m; p++) {
            double ta = c[p], tb = c[p + 1], ea, eb;
            if (pf_seg(f, s, ta, &ea) || pf_seg(f, s, tb, &eb)) {
                free(c);
                goto fail;
            }
            ea += ps_W * ta; /* line 5 */
            eb += ps_W * tb;
            double slope = (eb - ea) / (tb - ta);   /* line 6 */
            if (slope >= 0 || eb >= emin) continue; /* line 11 */
            mw_pareto_piece pc = {ta, ea, tb, eb};
            if (ea > emin) { /* lines 13-16: only the part below emin */
                pc.t0_s = ta + (emin - ea) / slope;
                pc.e0_J = emin;
            }
            emin = eb; /* lines 16, 18 */
            if (out->npieces == cap) {
                cap = cap ? 2 * cap : 8;
                mw_pareto_piece *np = realloc(out->piece, (size_t)cap * sizeof *np);
                if (!np) {
                    free(c);
                    goto fail;
                }
                out->piece = np;
            }
            out->piece[out->npieces++] = pc;
        }
        free(c);
    }
    return 0;
fail:
    mw_pareto_te_free(out);
    return -1;
}

int mw_pareto_te_contains(const mw_pareto_te *te, double t)
{
    if (!te || !isfinite(t)) return 0;
    double tol = 1e-12 * fabs(te->tmin_s);
    if (fabs(t - te->tmin_s) <= tol) return 1;
    for (int i = 0; i < te->npieces; i++) {
        const mw_pareto_piece *p = &te->piece[i];
        int cut = i == 0 ? p->t0_s > te->tmin_s : p->t0_s > te->piece[i - 1].t1_s;
        if ((cut ? t > p->t0_s : t >= p->t0_s) && t <= p->t1_s) return 1;
    }
    return 0;
}

int mw_pareto_te_time_for_energy_s(const mw_pareto_te *te, double e_J, double *t_s)
{
    if (e_J >= te->emax_J) {
        *t_s = te->tmin_s;
        return 0;
    }
    for (int i = 0; i < te->npieces; i++) {
        const mw_pareto_piece *pc = &te->piece[i];
        if (pc->e1_J > e_J) continue;
        if (pc->e0_J <= e_J)
            *t_s = pc->t0_s;
        else
            *t_s = pc->t0_s + (pc->t1_s - pc->t0_s) * (pc->e0_J - e_J) / (pc->e0_J - pc->e1_J);
        return 0;
    }
    return -1;
}

double mw_pareto_te_least_energy_J(const mw_pareto_te *te)
{
    return te->npieces ? te->piece[te->npieces - 1].e1_J : te->emax_J;
}

/* ---- profile builder and additivity ---------------------------------------------------- */

typedef struct {
    double x, t, e;
} pt3;

static int cmp_pt3(const void *a, const void *b)
{
    return cmp_double(&((const pt3 *)a)->x, &((const pt3 *)b)->x);
}

/* The measurements of device dv, sorted by x and averaged at equal x: *np points. */
static pt3 *device_points(const mw_lbopa_meas *m, size_t nm, int dv, double ps, size_t *np)
{
    size_t n = 0;
    for (size_t i = 0; i < nm; i++)
        n += m[i].device == dv;
    *np = 0;
    if (!n) return NULL;
    pt3 *p = malloc(n * sizeof *p);
    if (!p) return NULL;
    n = 0;
    for (size_t i = 0; i < nm; i++)
        if (m[i].device == dv)
            p[n++] = (pt3){m[i].x_units, m[i].time_s, m[i].energy_J - ps * m[i].time_s};
    qsort(p, n, sizeof *p, cmp_pt3);
    size_t u = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        pt3 s = {p[i].x, 0, 0};
        for (; j < n && p[j].x == p[i].x; j++) {
            s.t += p[j].t;
            s.e += p[j].e;
        }
        s.t /= (double)(j - i);
        s.e /= (double)(j - i);
        p[u++] = s;
        i = j;
    }
    *np = u;
    return p;
}

void mw_lbopa_profile_free(mw_lbopa_profile *p)
{
    if (!p) return;
    free(p->dev);
    free(p->storage);
    memset(p, 0, sizeof *p);
}

int mw_lbopa_profile_build(const mw_lbopa_meas *m, size_t nm, int k, double ps_W,
                           mw_lbopa_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char dummy[8];
    if (!err) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (!m || k < 1 || !(ps_W >= 0) || !isfinite(ps_W)) {
        snprintf(err, errlen, "no measurements, no devices or a bad static power");
        return -1;
    }
    for (size_t i = 0; i < nm; i++)
        if (m[i].device < -1 || m[i].device >= k || !(m[i].x_units > 0) ||
            !isfinite(m[i].x_units) || !(m[i].time_s > 0) || !isfinite(m[i].time_s) ||
            !isfinite(m[i].energy_J)) {
            snprintf(err, errlen, "measurement %zu: bad device, size, time or energy", i + 1);
            return -1;
        }
    out->k = k;
    out->dev = calloc((size_t)k, sizeof *out->dev);
    out->storage = malloc((2 * nm + 1) * sizeof *out->storage);
    if (!out->dev || !out->storage) goto fail_mem;
    size_t used = 0;
    for (int d = 0; d < k; d++) {
        size_t np;
        pt3 *p = device_points(m, nm, d, ps_W, &np);
        if (!p) {
            snprintf(err, errlen, "device %d: no measurements", d);
            goto fail;
        }
        double sxe = 0, sxx = 0;
        for (size_t i = 0; i < nm; i++)
            if (m[i].device == d) {
                double e = m[i].energy_J - ps_W * m[i].time_s;
                sxe += m[i].x_units * e;
                sxx += m[i].x_units * m[i].x_units;
            }
        double *x = out->storage + used, *t = x + np;
        for (size_t j = 0; j < np; j++) {
            x[j] = p[j].x;
            t[j] = p[j].t;
            if (j && !(t[j] > t[j - 1])) {
                snprintf(err, errlen,
                         "device %d: mean time %g s at size %g is not above %g s at size %g", d,
                         t[j], x[j], t[j - 1], x[j - 1]);
                free(p);
                goto fail;
            }
        }
        free(p);
        used += 2 * np;
        mw_lbopa_device *dv = &out->dev[d];
        dv->kind = MW_LBOPA_F_PWL;
        dv->x_units = x;
        dv->t_s = t;
        dv->npoints = np;
        dv->b_J_per_unit = sxe / sxx;
        if (!(dv->b_J_per_unit > 0) || !isfinite(dv->b_J_per_unit)) {
            snprintf(err, errlen, "device %d: dynamic energy per unit %g J is not positive", d,
                     dv->b_J_per_unit);
            goto fail;
        }
    }
    return 0;
fail_mem:
    snprintf(err, errlen, "out of memory");
fail:
    mw_lbopa_profile_free(out);
    return -1;
}

int mw_lbopa_additivity(const mw_lbopa_meas *m, size_t nm, int k, double ps_W, double *mean_rel,
                        size_t *nsizes)
{
    if (!m || k < 1 || !mean_rel || !nsizes) return -1;
    size_t na;
    pt3 *all = device_points(m, nm, -1, ps_W, &na);
    if (!all) return -1;
    pt3 **dp = calloc((size_t)k, sizeof *dp);
    size_t *dn = calloc((size_t)k, sizeof *dn);
    int rc = -1;
    if (!dp || !dn) goto out;
    for (int d = 0; d < k; d++)
        dp[d] = device_points(m, nm, d, ps_W, &dn[d]);
    double sum_rel = 0;
    size_t used = 0;
    for (size_t a = 0; a < na; a++) {
        if (!(all[a].e > 0)) continue;
        double sum = 0;
        int complete = 1;
        for (int d = 0; d < k && complete; d++) {
            int found = 0;
            for (size_t j = 0; j < dn[d] && !found; j++)
                if (dp[d][j].x == all[a].x) {
                    sum += dp[d][j].e;
                    found = 1;
                }
            complete = found;
        }
        if (!complete) continue;
        sum_rel += fabs(sum - all[a].e) / all[a].e;
        used++;
    }
    if (used) {
        *mean_rel = sum_rel / (double)used;
        *nsizes = used;
        rc = 0;
    }
out:
    if (dp)
        for (int d = 0; d < k; d++)
            free(dp[d]);
    free(dp);
    free(dn);
    free(all);
    return rc;
}
