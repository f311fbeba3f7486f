/* clock — the meter clock model (mw_clock.h): meter time of each window end -> host time.
 *
 * Design. Each pair (meter time x, host arrival) becomes a point (x, z), z = arrival minus
 * the assumed fastest delivery minus x: host-minus-meter time plus the pair's extra delay,
 * which is >= 0. The fastest delivery is the firmware's line hold (a fixed time from the
 * window's end to its first byte, docs/protocol.md), which the caller has already
 * subtracted from the arrival, plus latency_ns + line_bytes * byte_ns (the UART up to the
 * last byte, then the transport's minimum: USB's 1 ms frame by default); with the hold the
 * firmware's part is constant to a few us, so latency_err_ns is small.
 *
 * The mapping is the line z = a + s x under all points that is highest at their mean x,
 * i.e. that minimises the summed residuals subject to every residual >= 0 (the linear
 * program of Moon, Skelly & Towsley 1999); it is the edge of the points' lower convex hull
 * spanning their mean x. Its slope is clamped to +-max_drift_ppm and weighed against a
 * prior by their errors (the prior: 0 +- max_drift_ppm at first, the previous segment's
 * drift after a re-anchor or in a successor clock); with fewer than 4 pairs or under 10 s
 * of meter time the slope is the prior's and the line touches the lowest point. Up to 10 s
 * the prior does better than the few pairs' envelope on 1-16 ms delays (measured: the p99
 * error between 5 and 15 s falls from 3.9 to 3.5 ms against 2 s), later it loses.
 *
 * Pairs are kept for the whole segment (16 bytes each, 1 flag byte, 1.25 bytes of block
 * cache, 4 bytes of hull scratch) in blocks of 64 whose lower hulls are cached: the hull
 * of a range is built from the cached hulls of the blocks wholly inside it plus the points
 * of the partial blocks at its ends (the hull of a union is the hull of the union of the
 * hulls), so the live fit over the pairs of the last fit_window_s costs O(window / 64 x a
 * few vertices) per pair, not O(pairs): with map and uncertainty about 5 us at 4 Hz and
 * 9 us at 10 Hz (bench_align).
 *
 * Outliers (impossible early arrivals): the pairs that define the line are tested. A pair,
 * together with the pairs within outlier_ns of the line within +-1 s of it (at most 3 in
 * all; more means its neighbours support it), is set aside when leaving them out raises the
 * line at its place by more than outlier_ns plus that line's own uncertainty there (its fit
 * term, below: a line whose slope is still poor must not reject the pairs that would mend
 * it). While the fit is young (under 32 pairs or 30 s) twice the median residual is added
 * (a genuine fast delivery cannot be further below the envelope of the others), and with
 * fewer than 8 pairs nothing is set aside. A set-aside pair that comes within the
 * threshold of a later line is taken back.
 *
 * mw_clock_refit_all fits windows of fit_window_s centred on knots fit_window_s / 4 apart
 * (one fit when the segment is shorter) and interpolates between the knots' values, so a
 * crystal whose error wanders with temperature is followed as well as a constant one.
 *
 * Uncertainty (uncertainty_ns) at meter time x, for a fit over pairs spanning T around
 * their mean x m: g + e |x - m| + latency_err_ns. g is the 8th-lowest residual (delay above
 * the fitted line) of the fit's pairs: two of them are on the line, so g is the height of
 * the band above the line that holds 6 more; e is the slope error, the prior's and
 * g / max(T / 2, 1 s) (how far the line could tilt about m and stay within g of the pairs
 * at both ends) combined by their inverse squares. With fewer than 8 pairs g is the
 * largest residual plus 20 ms: the floor is not located yet. latency_err_ns is the error of
 * the assumed fastest delivery, which no fit can see. Measured with the right latency, the
 * fit's error is within g + e |x - m| in 97 % of windows live, 100 % after refit_all
 * (tests/unit/host/test_clock.c). State: at the newest pair (live), or the largest over the
 * segment (after refit_all); mw_clock_uncertainty gives it at any meter time.
 *
 * mw_clock_knots hands the final mapping out as points for the run store (schema 7 keeps
 * them instead of rewriting every window's times at the end): the knots' host times
 * rounded to the ns, each with the slope to the next knot computed from the unrounded
 * values, the last with its own fit's slope, and one lead point on the first fit's line, so
 * that a reader's point-and-slope mapping is within 1 ns of mw_clock_map everywhere. */
#include "mw_clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#define BLK 64                  /* pairs per block */
#define MIN_PAIRS 4             /* fewer: the prior slope */
#define MIN_SPAN_NS 10e9        /* shorter: the prior slope */
#define MATURE_PAIRS 32         /* from here on the outlier threshold is outlier_ns */
#define MATURE_SPAN_NS 30e9     /* ... and this span */
#define OUTLIER_MIN_PAIRS 8     /* fewer: nothing is set aside */
#define CLUSTER_NS 1000000000LL /* +-1 s around a suspect pair */
#define CLUSTER_MAX 3           /* more pairs at its level: it is supported */
#define UNC_K 8                 /* uncertainty: the 8th-lowest residual */
#define UNKNOWN_SPREAD_NS 20e6  /* added to g while fewer than UNC_K pairs exist */
#define KNOT_DIV 4              /* refit_all: knots fit_window_s / 4 apart */
#define MAX_ROUNDS 8            /* outlier rounds per fit */

typedef struct {
    int64_t x; /* meter time since the segment's first pair, ns */
    int64_t z; /* host - latency - origin - x, ns */
} pair_t;

typedef struct {
    int64_t sumx;   /* sum of x of the block's pairs not set aside */
    int32_t cnt;    /* their number */
    int16_t nv;     /* lower hull vertices of those pairs, -1 = to compute */
    uint8_t v[BLK]; /* their offsets in the block */
} block_t;

typedef struct {
    int ok;         /* a line exists */
    int prior;      /* slope from the prior */
    int lo, hi;     /* pair range [lo, hi) */
    int n;          /* pairs in the range not set aside */
    double a, s;    /* z = a + s x */
    double xbar;    /* their mean x, ns */
    int64_t xf, xl; /* first and last x of them */
    int t0, t1;     /* the pairs on the line (t1 == t0 if one) */
    double serr;    /* error of s */
} fit_t;

typedef struct {
    int64_t x;   /* knot, ns */
    double v;    /* host - origin at x, ns */
    double a, s; /* the knot's own line, for extrapolation */
    double g;    /* its fit's floor term, ns */
    double serr; /* its slope error */
    double xbar; /* its fit's mean x, ns */
} knot_t;

struct mw_clock {
    mw_clock_config cfg;
    uint64_t m0_us; /* meter time of the segment's first pair */
    int64_t h0_ns;  /* its host time minus latency */
    uint64_t last_us;
    pair_t *p;
    uint8_t *out; /* 1 = set aside */
    int n, cap;
    block_t *blk;
    int blkcap;
    int nout;
    int32_t *hull;
    int hullcap;
    int lo; /* live window start */
    fit_t live;
    int tested0, tested1; /* the line's pairs last found not to be outliers */
    knot_t *knot;
    int nknot, knotcap, use_knots;
    double prior_s, prior_serr;
};

/* ---- small helpers ------------------------------------------------------------------ */

static double slope_lo(const mw_clock *c)
{
    return 1.0 / (1.0 + c->cfg.max_drift_ppm * 1e-6) - 1.0;
}

static double slope_hi(const mw_clock *c)
{
    return 1.0 / (1.0 - c->cfg.max_drift_ppm * 1e-6) - 1.0;
}

static double drift_ppm_of(double s)
{
    return (1.0 / (1.0 + s) - 1.0) * 1e6;
}

static double line_at(const fit_t *f, int64_t x)
{
    return f->a + f->s * (double)x;
}

static int64_t latency_of(const mw_clock *c, size_t line_bytes)
{
    return c->cfg.latency_ns + (int64_t)line_bytes * c->cfg.byte_ns;
}

/* > 0 when o -> a -> b turns left (counter-clockwise): b lies above the line o-a. */
static int left_turn(const pair_t *o, const pair_t *a, const pair_t *b)
{
    __int128 c = (__int128)(a->x - o->x) * (b->z - o->z) - (__int128)(a->z - o->z) * (b->x - o->x);
    return c > 0;
}

static void hull_push(const pair_t *p, int32_t *h, int *m, int32_t i)
{
    while (*m >= 2 && !left_turn(&p[h[*m - 2]], &p[h[*m - 1]], &p[i]))
        (*m)--;
    h[(*m)++] = i;
}

static int block_complete(const mw_clock *c, int b)
{
    return (b + 1) * BLK <= c->n;
}

static void block_compute(mw_clock *c, int b)
{
    block_t *k = &c->blk[b];
    int32_t h[BLK];
    int m = 0;
    k->sumx = 0;
    k->cnt = 0;
    for (int i = b * BLK; i < (b + 1) * BLK; i++) {
        if (c->out[i]) continue;
        k->sumx += c->p[i].x;
        k->cnt++;
        hull_push(c->p, h, &m, i);
    }
    for (int j = 0; j < m; j++)
        k->v[j] = (uint8_t)(h[j] - b * BLK);
    k->nv = (int16_t)m;
}

static void set_out(mw_clock *c, int i, int v)
{
    if (c->out[i] == v) return;
    c->out[i] = (uint8_t)v;
    c->nout += v ? 1 : -1;
    c->blk[i / BLK].nv = -1;
}

/* Lower hull of the pairs of [lo, hi) not set aside, into c->hull; also their count and
 * sum of x. Returns the number of vertices. */
static int hull_build(mw_clock *c, int lo, int hi, int *n, double *sumx)
{
    int m = 0;
    __int128 sx = 0;
    int cnt = 0;
    for (int i = lo; i < hi;) {
        int b = i / BLK;
        if (i == b * BLK && (b + 1) * BLK <= hi && block_complete(c, b)) {
            block_t *k = &c->blk[b];
            if (k->nv < 0) block_compute(c, b);
            for (int j = 0; j < k->nv; j++)
                hull_push(c->p, c->hull, &m, b * BLK + k->v[j]);
            sx += k->sumx;
            cnt += k->cnt;
            i += BLK;
            continue;
        }
        if (!c->out[i]) {
            hull_push(c->p, c->hull, &m, i);
            sx += c->p[i].x;
            cnt++;
        }
        i++;
    }
    *n = cnt;
    *sumx = (double)sx;
    return m;
}

/* The lowest residual above f among block b's hull vertices (INFINITY when it has none): no
 * pair of the block lies lower than its hull. */
static double block_min_residual(const mw_clock *c, const fit_t *f, int b)
{
    const block_t *k = &c->blk[b];
    double m = INFINITY;
    for (int j = 0; j < k->nv; j++) {
        const pair_t *q = &c->p[b * BLK + k->v[j]];
        double r = (double)q->z - line_at(f, q->x);
        if (r < m) m = r;
    }
    return m;
}

static double floor_gap(const mw_clock *c, const fit_t *f);
static double unc_at(const mw_clock *c, const fit_t *f, int64_t x);

/* a (and the pairs on the line) for slope f->s over the hull in c->hull: the edge's left
 * end when the slope is that of hull edge `edge`, else the vertex supporting the slope. */
static void support(const mw_clock *c, int m, fit_t *f, int edge)
{
    const pair_t *p = c->p;
    const int32_t *h = c->hull;
    if (edge >= 0) {
        f->t0 = h[edge];
        f->t1 = h[edge + 1];
        f->a = (double)p[f->t0].z - f->s * (double)p[f->t0].x;
        return;
    }
    double best = INFINITY;
    for (int j = 0; j < m; j++) {
        double a = (double)p[h[j]].z - f->s * (double)p[h[j]].x;
        if (a < best) {
            best = a;
            f->t0 = f->t1 = h[j];
        }
    }
    f->a = best;
}

/* The line of the pairs of [lo, hi) not set aside (no outlier tests). */
static void fit_plain(mw_clock *c, int lo, int hi, fit_t *f)
{
    memset(f, 0, sizeof *f);
    f->lo = lo;
    f->hi = hi;
    double sumx;
    int m = hull_build(c, lo, hi, &f->n, &sumx);
    if (f->n == 0) return;
    const pair_t *p = c->p;
    const int32_t *h = c->hull;
    f->ok = 1;
    f->xbar = sumx / f->n;
    f->xf = p[h[0]].x;
    f->xl = p[h[m - 1]].x;
    double smin = slope_lo(c), smax = slope_hi(c);
    f->prior = f->n < MIN_PAIRS || (double)(f->xl - f->xf) < MIN_SPAN_NS;
    int edge = -1;
    if (f->prior) {
        f->s = fmin(fmax(c->prior_s, smin), smax);
        f->serr = c->prior_serr;
    } else {
        int k = 0;
        while (k < m - 2 && (double)p[h[k + 1]].x <= f->xbar)
            k++;
        double s = (double)(p[h[k + 1]].z - p[h[k]].z) / (double)(p[h[k + 1]].x - p[h[k]].x);
        if (s >= smin && s <= smax) edge = k;
        f->s = fmin(fmax(s, smin), smax);
        support(c, m, f, edge);
        /* weigh the envelope's slope against the prior by their errors */
        double el = floor_gap(c, f) / fmax((double)(f->xl - f->xf) / 2, 1e9);
        double ep = c->prior_serr;
        double w = ep * ep / (ep * ep + el * el);
        f->serr = 1 / sqrt(1 / (ep * ep) + 1 / (el * el));
        if (w > 1 - 1e-6) return;
        f->s = c->prior_s + w * (f->s - c->prior_s);
        edge = -1;
    }
    support(c, m, f, edge);
}

static int mature(const fit_t *f)
{
    return f->n >= MATURE_PAIRS && (double)(f->xl - f->xf) >= MATURE_SPAN_NS;
}

/* How far below the envelope of the others a genuine fast delivery can be while the fit is
 * young: twice the median residual above f (the envelope of n pairs is above the floor by
 * more than the median delay only with probability 2^-n), from the pairs of its range. */
static double young_spread(const mw_clock *c, const fit_t *f)
{
    int n = f->hi - f->lo;
    double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    double m = 0;
    int k = 0;
    for (int i = f->lo; i < f->hi; i++)
        if (!c->out[i]) {
            double v = (double)c->p[i].z - line_at(f, c->p[i].x);
            if (r) r[k++] = v;
            m = fmax(m, v);
        }
    if (r && k) m = gsl_stats_median(r, 1, (size_t)k); /* reorders r */
    free(r);
    return 2 * m;
}

/* Is pair v (on the line of f) an isolated outlier? Sets it (and its cluster) aside if so. */
static int test_outlier(mw_clock *c, const fit_t *f, int v)
{
    const pair_t *p = c->p;
    int32_t cl[CLUSTER_MAX];
    int ncl = 0;
    for (int i = v; i >= f->lo && p[v].x - p[i].x <= CLUSTER_NS; i--)
        if (!c->out[i] && (double)p[i].z - line_at(f, p[i].x) < (double)c->cfg.outlier_ns) {
            if (ncl == CLUSTER_MAX) return 0;
            cl[ncl++] = i;
        }
    for (int i = v + 1; i < f->hi && p[i].x - p[v].x <= CLUSTER_NS; i++)
        if (!c->out[i] && (double)p[i].z - line_at(f, p[i].x) < (double)c->cfg.outlier_ns) {
            if (ncl == CLUSTER_MAX) return 0;
            cl[ncl++] = i;
        }
    for (int j = 0; j < ncl; j++)
        set_out(c, cl[j], 1);
    fit_t g;
    fit_plain(c, f->lo, f->hi, &g);
    int is_out = 0;
    if (g.ok && g.n >= OUTLIER_MIN_PAIRS - CLUSTER_MAX) {
        double thr = (double)c->cfg.outlier_ns + unc_at(c, &g, p[v].x);
        if (!mature(&g)) thr += young_spread(c, &g);
        is_out = line_at(&g, p[v].x) - (double)p[v].z > thr;
    }
    if (!is_out)
        for (int j = 0; j < ncl; j++)
            set_out(c, cl[j], 0);
    return is_out;
}

/* The line of [lo, hi) with outliers set aside (and earlier ones taken back). */
static void fit_robust(mw_clock *c, int lo, int hi, fit_t *f)
{
    for (int round = 0; round < MAX_ROUNDS; round++) {
        fit_plain(c, lo, hi, f);
        if (!f->ok) return;
        if (c->nout) {
            /* take back what the current line confirms (blocks without set-aside pairs,
             * known from their counts, are skipped) */
            int back = 0;
            double g = floor_gap(c, f);
            double thr_back = (double)c->cfg.outlier_ns + g + (mature(f) ? 0 : young_spread(c, f));
            for (int i = lo; i < hi;) {
                int b = i / BLK;
                if (i == b * BLK && (b + 1) * BLK <= hi && block_complete(c, b) &&
                    c->blk[b].nv >= 0 && c->blk[b].cnt == BLK) {
                    i += BLK;
                    continue;
                }
                double thr = thr_back + f->serr * fabs((double)c->p[i].x - f->xbar);
                if (c->out[i] && (double)c->p[i].z >= line_at(f, c->p[i].x) - thr) {
                    set_out(c, i, 0);
                    back = 1;
                }
                i++;
            }
            if (back) {
                c->tested0 = c->tested1 = -1;
                continue;
            }
        }
        if (f->n < OUTLIER_MIN_PAIRS) return;
        if (f->t0 == c->tested0 && f->t1 == c->tested1) return;
        if (test_outlier(c, f, f->t0) || (f->t1 != f->t0 && test_outlier(c, f, f->t1))) continue;
        c->tested0 = f->t0;
        c->tested1 = f->t1;
        return;
    }
    fit_plain(c, lo, hi, f);
}

/* ---- uncertainty -------------------------------------------------------------------- */

static void keep_low(double *low, int *nlow, double r)
{
    if (*nlow == UNC_K && r >= low[UNC_K - 1]) return;
    int j = *nlow < UNC_K ? (*nlow)++ : UNC_K - 1;
    while (j > 0 && low[j - 1] > r) {
        low[j] = low[j - 1];
        j--;
    }
    low[j] = r;
}

/* g: the UNC_K-th lowest residual above f (see the top of the file). Blocks whose lowest
 * residual (found on their cached hull) is above the UNC_K-th lowest block minimum cannot
 * hold any of the UNC_K lowest residuals, so only a few blocks are scanned. */
static double floor_gap(const mw_clock *c, const fit_t *f)
{
    double low[UNC_K], rmax = 0;
    int nlow = 0;
    if (f->n < UNC_K) {
        for (int i = f->lo; i < f->hi; i++)
            if (!c->out[i]) rmax = fmax(rmax, (double)c->p[i].z - line_at(f, c->p[i].x));
        return rmax + UNKNOWN_SPREAD_NS;
    }
    /* pass 1: block minima -> a bound */
    double bmin[UNC_K];
    int nb = 0;
    for (int i = f->lo; i < f->hi;) {
        int b = i / BLK;
        const block_t *k = &c->blk[b];
        if (i == b * BLK && (b + 1) * BLK <= f->hi && block_complete(c, b) && k->nv >= 0) {
            double m = block_min_residual(c, f, b);
            if (k->nv) keep_low(bmin, &nb, m);
            i += BLK;
            continue;
        }
        if (!c->out[i]) keep_low(bmin, &nb, (double)c->p[i].z - line_at(f, c->p[i].x));
        i++;
    }
    double bound = nb == UNC_K ? bmin[UNC_K - 1] : INFINITY;
    /* pass 2: every pair of the blocks that may hold one of the lowest */
    for (int i = f->lo; i < f->hi;) {
        int b = i / BLK;
        const block_t *k = &c->blk[b];
        if (i == b * BLK && (b + 1) * BLK <= f->hi && block_complete(c, b) && k->nv >= 0) {
            double m = block_min_residual(c, f, b);
            if (m > bound) {
                i += BLK;
                continue;
            }
        }
        int end = (b + 1) * BLK < f->hi ? (b + 1) * BLK : f->hi;
        for (; i < end; i++) {
            double r = (double)c->p[i].z - line_at(f, c->p[i].x);
            if (!c->out[i] && (nlow < UNC_K || r < low[UNC_K - 1])) keep_low(low, &nlow, r);
        }
    }
    return low[nlow - 1];
}

static double unc_at(const mw_clock *c, const fit_t *f, int64_t x)
{
    double g = floor_gap(c, f);
    return g + f->serr * fabs((double)x - f->xbar);
}

/* ---- API ---------------------------------------------------------------------------- */

void mw_clock_config_default(mw_clock_config *cfg)
{
    cfg->fit_window_s = 600.0;
    cfg->latency_ns = MW_CLOCK_USB_MIN_NS;
    cfg->byte_ns = 85000;
    cfg->max_drift_ppm = 1000.0;
    cfg->outlier_ns = 2000000;
    cfg->latency_err_ns = MW_CLOCK_LATENCY_ERR_NS;
}

mw_clock *mw_clock_new(const mw_clock_config *cfg)
{
    mw_clock *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (cfg)
        c->cfg = *cfg;
    else
        mw_clock_config_default(&c->cfg);
    if (!(c->cfg.max_drift_ppm > 0 && c->cfg.max_drift_ppm < 1e5)) c->cfg.max_drift_ppm = 1000.0;
    if (!(c->cfg.fit_window_s > 0)) c->cfg.fit_window_s = 600.0;
    c->prior_serr = c->cfg.max_drift_ppm * 1e-6;
    c->tested0 = c->tested1 = -1;
    return c;
}

void mw_clock_free(mw_clock *c)
{
    if (!c) return;
    free(c->p);
    free(c->out);
    free(c->blk);
    free(c->hull);
    free(c->knot);
    free(c);
}

static int grow(mw_clock *c)
{
    if (c->n < c->cap) return 0;
    int cap = c->cap ? c->cap * 2 : 4 * BLK;
    pair_t *p = realloc(c->p, (size_t)cap * sizeof *p);
    if (!p) return -1;
    c->p = p;
    uint8_t *o = realloc(c->out, (size_t)cap);
    if (!o) return -1;
    c->out = o;
    block_t *b = realloc(c->blk, (size_t)(cap / BLK) * sizeof *b);
    if (!b) return -1;
    c->blk = b;
    int32_t *h = realloc(c->hull, (size_t)cap * sizeof *h);
    if (!h) return -1;
    c->hull = h;
    c->cap = cap;
    return 0;
}

int mw_clock_add(mw_clock *c, uint64_t meter_us, int64_t host_ns, size_t line_bytes)
{
    if (c->n > 0 && meter_us <= c->last_us) mw_clock_reanchor(c); /* meter time restarted */
    if (grow(c)) return -1;
    int64_t y = host_ns - latency_of(c, line_bytes);
    if (c->n == 0) {
        c->m0_us = meter_us;
        c->h0_ns = y;
        c->lo = 0;
    }
    int64_t x = (int64_t)(meter_us - c->m0_us) * 1000;
    int i = c->n++;
    c->p[i].x = x;
    c->p[i].z = y - c->h0_ns - x;
    c->out[i] = 0;
    if (i % BLK == 0) c->blk[i / BLK].nv = -1;
    c->last_us = meter_us;
    c->use_knots = 0;
    int64_t w = (int64_t)(c->cfg.fit_window_s * 1e9);
    while (c->p[c->lo].x < x - w)
        c->lo++;
    fit_robust(c, c->lo, c->n, &c->live);
    return c->out[i] ? 1 : 0;
}

/* The prior for the segment after c's: the drift of its end (the last knot after
 * refit_all, else the live fit when it is the envelope's), else c's own prior. */
static void next_prior(const mw_clock *c, double *s, double *serr)
{
    *s = c->prior_s;
    *serr = c->prior_serr;
    if (c->n > 0 && c->use_knots) {
        const knot_t *k = &c->knot[c->nknot - 1];
        *s = k->s;
        *serr = fmax(k->serr, 1e-6);
    } else if (c->n > 0 && c->live.ok && !c->live.prior) {
        *s = c->live.s;
        *serr = fmax(c->live.serr, 1e-6);
    }
}

mw_clock *mw_clock_successor(const mw_clock *c)
{
    mw_clock *d = mw_clock_new(&c->cfg);
    if (d) next_prior(c, &d->prior_s, &d->prior_serr);
    return d;
}

void mw_clock_reanchor(mw_clock *c)
{
    /* the drift of the segment's end becomes the prior of the next one's start */
    next_prior(c, &c->prior_s, &c->prior_serr);
    c->n = 0;
    c->nout = 0;
    c->lo = 0;
    c->use_knots = 0;
    c->nknot = 0;
    c->tested0 = c->tested1 = -1;
    memset(&c->live, 0, sizeof c->live);
}

static int64_t x_of(const mw_clock *c, uint64_t meter_us)
{
    return (int64_t)(meter_us - c->m0_us) * 1000; /* wraps to negative before m0 */
}

/* Host time (minus the origin) at x under the knots of refit_all. */
static double knots_at(const mw_clock *c, int64_t x, double *unc)
{
    const knot_t *k = c->knot;
    int n = c->nknot;
    const knot_t *e = NULL;
    if (n == 1 || x <= k[0].x)
        e = &k[0];
    else if (x >= k[n - 1].x)
        e = &k[n - 1];
    if (e) {
        if (unc) *unc = e->g + e->serr * fabs((double)x - e->xbar);
        return (double)x + e->a + e->s * (double)x;
    }
    int lo = 0, hi = n - 1; /* k[lo].x <= x < k[hi].x */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (k[mid].x <= x)
            lo = mid;
        else
            hi = mid;
    }
    double t = (double)(x - k[lo].x) / (double)(k[hi].x - k[lo].x);
    if (unc) {
        double u0 = k[lo].g + k[lo].serr * fabs((double)k[lo].x - k[lo].xbar);
        double u1 = k[hi].g + k[hi].serr * fabs((double)k[hi].x - k[hi].xbar);
        *unc = u0 + t * (u1 - u0);
    }
    return k[lo].v + t * (k[hi].v - k[lo].v);
}

int mw_clock_map(const mw_clock *c, uint64_t meter_us, int64_t *host_ns)
{
    if (c->n == 0 || (!c->use_knots && !c->live.ok)) return -1;
    int64_t x = x_of(c, meter_us);
    double v = c->use_knots ? knots_at(c, x, NULL) : (double)x + line_at(&c->live, x);
    *host_ns = c->h0_ns + (int64_t)llround(v);
    return 0;
}

int mw_clock_uncertainty(const mw_clock *c, uint64_t meter_us, int64_t *uncertainty_ns)
{
    if (c->n == 0 || (!c->use_knots && !c->live.ok)) return -1;
    int64_t x = x_of(c, meter_us);
    double u;
    if (c->use_knots)
        knots_at(c, x, &u);
    else
        u = unc_at(c, &c->live, x);
    *uncertainty_ns = (int64_t)llround(u) + c->cfg.latency_err_ns;
    return 0;
}

static int first_at_or_after(const mw_clock *c, int64_t x)
{
    int lo = 0, hi = c->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (c->p[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void mw_clock_refit_all(mw_clock *c)
{
    if (c->n == 0) return;
    int64_t w = (int64_t)(c->cfg.fit_window_s * 1e9);
    int64_t xf = c->p[0].x, xl = c->p[c->n - 1].x;
    int need = xl - xf <= w ? 1 : (int)((xl - xf) / (w / KNOT_DIV)) + 2;
    if (need > c->knotcap) {
        knot_t *k = realloc(c->knot, (size_t)need * sizeof *k);
        if (!k) return; /* out of memory: the live fit stays */
        c->knot = k;
        c->knotcap = need;
    }
    int nk = 0;
    for (int j = 0; j < need; j++) {
        knot_t *k = &c->knot[nk];
        int lo = 0, hi = c->n;
        if (need == 1) {
            k->x = xf;
        } else {
            k->x = j == need - 1 ? xl : xf + (int64_t)j * (w / KNOT_DIV);
            if (k->x > xl || (j > 0 && k->x <= c->knot[nk - 1].x)) continue;
            int64_t wl = k->x - w / 2;
            if (wl > xl - w) wl = xl - w;
            if (wl < xf) wl = xf;
            lo = first_at_or_after(c, wl);
            hi = first_at_or_after(c, wl + w + 1);
        }
        fit_t f;
        c->tested0 = c->tested1 = -1;
        fit_robust(c, lo, hi, &f);
        if (!f.ok) continue;
        k->a = f.a;
        k->s = f.s;
        k->v = (double)k->x + line_at(&f, k->x);
        k->g = floor_gap(c, &f);
        k->serr = f.serr;
        k->xbar = f.xbar;
        nk++;
    }
    c->tested0 = c->tested1 = -1;
    if (nk == 0) return;
    c->nknot = nk;
    c->use_knots = 1;
}

void mw_clock_get_state(const mw_clock *c, mw_clock_state *st)
{
    memset(st, 0, sizeof *st);
    st->outliers = c->nout;
    if (c->n == 0) return;
    if (c->use_knots) {
        st->npairs = c->n - c->nout;
        st->span_s = (double)(c->p[c->n - 1].x - c->p[0].x) * 1e-9;
        const knot_t *k0 = &c->knot[0], *k1 = &c->knot[c->nknot - 1];
        double s = c->nknot == 1 || k1->x == k0->x
                       ? k0->s
                       : (k1->v - k0->v) / (double)(k1->x - k0->x) - 1.0;
        st->drift_ppm = drift_ppm_of(s);
        double u, umax;
        knots_at(c, c->p[0].x, &umax);
        knots_at(c, c->p[c->n - 1].x, &u);
        umax = fmax(umax, u);
        for (int j = 0; j < c->nknot; j++) {
            knots_at(c, c->knot[j].x, &u);
            umax = fmax(umax, u);
        }
        st->uncertainty_ns = (int64_t)llround(umax) + c->cfg.latency_err_ns;
        return;
    }
    const fit_t *f = &c->live;
    if (!f->ok) return;
    st->npairs = f->n;
    st->span_s = (double)(f->xl - f->xf) * 1e-9;
    st->drift_ppm = drift_ppm_of(f->s);
    st->uncertainty_ns = (int64_t)llround(unc_at(c, f, c->p[c->n - 1].x)) + c->cfg.latency_err_ns;
}

/* ---- the mapping as points (mw_clock_knots) ------------------------------------------- */

/* what mw_clock_map rounds: host time minus the origin at x */
static double v_at(const mw_clock *c, int64_t x)
{
    return c->use_knots ? knots_at(c, x, NULL) : (double)x + line_at(&c->live, x);
}

int mw_clock_knots(const mw_clock *c, mw_clock_knot *out, int cap)
{
    if (c->n == 0 || (!c->use_knots && !c->live.ok)) return 0;
    int nk = c->use_knots ? c->nknot : 1;
    if (cap < nk + 1) return nk + 1;
    /* knot j at a whole us (its meter time; knots lie on pairs' times, which are) */
    for (int j = 0; j < nk; j++) {
        int64_t x = c->use_knots ? c->knot[j].x : c->p[c->n - 1].x;
        out[j + 1].x_us = (int64_t)c->m0_us + (x >= 0 ? x / 1000 : -((-x + 999) / 1000));
    }
    /* the lead point: on the first fit's line, which mw_clock_map follows before it */
    out[0].x_us = out[1].x_us - MW_CLOCK_KNOT_LEAD_US;
    double s0 = c->use_knots ? c->knot[0].s : c->live.s;
    out[0].slope_ns_per_us = (1.0 + s0) * 1e3;
    for (int j = 0; j <= nk; j++) {
        double v = v_at(c, (out[j].x_us - (int64_t)c->m0_us) * 1000);
        out[j].t_ns = c->h0_ns + (int64_t)llround(v);
        if (j == 0) continue;
        if (j < nk && out[j + 1].x_us > out[j].x_us) { /* to the next knot, unrounded */
            double v1 = v_at(c, (out[j + 1].x_us - (int64_t)c->m0_us) * 1000);
            out[j].slope_ns_per_us = (v1 - v) / (double)(out[j + 1].x_us - out[j].x_us);
        } else { /* beyond the last knot: its own line */
            out[j].slope_ns_per_us = (1.0 + (c->use_knots ? c->knot[nk - 1].s : s0)) * 1e3;
        }
    }
    return nk + 1;
}
