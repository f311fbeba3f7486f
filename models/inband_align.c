/* inband_align — see models/include/inband_align.h. */
#include "inband_align.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"

#define COARSE_NS 10000000LL /* 10 ms */
#define FINE_NS 1000000LL    /* 1 ms */
#define MIN_WINDOWS 8

typedef struct {
    const mw_energy_window *w; /* the windows used */
    size_t n;
    const mw_energy_trace *src;
    size_t nsrc;
    double *x; /* scratch: x_i(d) */
} problem;

/* x_i(d) for every window, W */
static void shifted(const problem *p, int64_t d_ns, double *x)
{
    for (size_t i = 0; i < p->n; i++) {
        int64_t a = p->w[i].t0_ns - d_ns, b = p->w[i].t1_ns - d_ns;
        double v = 0;
        for (size_t k = 0; k < p->nsrc; k++) {
            int64_t cov = mw_energy_span_covered_ns(&p->src[k], a, b);
            if (cov > 0) v += (double)mw_energy_span_pj(&p->src[k], a, b) / (double)cov * 1e-3;
        }
        x[i] = v;
    }
}

/* Pearson r of the windows' powers and x; -2 when either does not vary */
static double pearson(const problem *p, const double *x)
{
    double my = 0, mx = 0, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < p->n; i++) {
        my += p->w[i].power_mw * 1e-3;
        mx += x[i];
    }
    my /= (double)p->n;
    mx /= (double)p->n;
    for (size_t i = 0; i < p->n; i++) {
        double dy = p->w[i].power_mw * 1e-3 - my, dx = x[i] - mx;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : -2;
}

static double r_at(const problem *p, int64_t d_ns)
{
    shifted(p, d_ns, p->x);
    return pearson(p, p->x);
}

/* the best d on the grid from lo to hi by step; *r its correlation */
static int64_t scan(const problem *p, int64_t lo, int64_t hi, int64_t step, double *r)
{
    int64_t best = lo;
    *r = -3;
    for (int64_t d = lo; d <= hi; d += step) {
        double v = r_at(p, d);
        if (v > *r) {
            *r = v;
            best = d;
        }
    }
    return best;
}

/* the fit y = base + gain x(d) and the standard error of d */
static void fit_at(const problem *p, double d_s, mw_inband_align_fit *out)
{
    size_t n = p->n;
    double *x = p->x, *g = mw_xcalloc(n, sizeof *g), *xp = mw_xcalloc(n, sizeof *xp);
    int64_t d = llround(d_s * 1e9);
    shifted(p, d + FINE_NS, xp);
    shifted(p, d - FINE_NS, g);
    for (size_t i = 0; i < n; i++)
        g[i] = (xp[i] - g[i]) / (2e-9 * FINE_NS); /* dx/dd, W/s */
    shifted(p, d, x);
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += p->w[i].power_mw * 1e-3;
    }
    mx /= (double)n;
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (p->w[i].power_mw * 1e-3 - my);
    }
    out->gain_w = sxx > 0 ? sxy / sxx : 0;
    out->base_w = my - out->gain_w * mx;
    double ss = 0, mg = 0, sgx = 0;
    for (size_t i = 0; i < n; i++) {
        double e = p->w[i].power_mw * 1e-3 - out->base_w - out->gain_w * x[i];
        ss += e * e;
        g[i] *= out->gain_w;
        mg += g[i];
    }
    mg /= (double)n;
    for (size_t i = 0; i < n; i++)
        sgx += (g[i] - mg) * (x[i] - mx);
    double gg = 0, b = sxx > 0 ? sgx / sxx : 0; /* g's residual after 1 and x */
    for (size_t i = 0; i < n; i++) {
        double e = g[i] - mg - b * (x[i] - mx);
        gg += e * e;
    }
    double s2 = n > 3 ? ss / (double)(n - 3) : 0;
    out->sigma_s = gg > 0 ? sqrt(s2 / gg) : NAN;
    free(g);
    free(xp);
}

int mw_inband_align(const mw_energy_window *wall, size_t nwall, const mw_energy_trace *src,
                    size_t nsrc, double max_offset_s, mw_inband_align_fit *out, char *note,
                    size_t notelen)
{
    memset(out, 0, sizeof *out);
    if (max_offset_s <= 0) max_offset_s = 2.0;
    int64_t m = llround(max_offset_s * 1e9) + FINE_NS;
    /* the in-band data's extent: where every source has windows */
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    for (size_t k = 0; k < nsrc; k++) {
        if (!src[k].n) {
            snprintf(note, notelen, "an in-band source has no window");
            return -1;
        }
        if (src[k].w[0].t0_ns > lo) lo = src[k].w[0].t0_ns;
        if (src[k].w[src[k].n - 1].t1_ns < hi) hi = src[k].w[src[k].n - 1].t1_ns;
    }
    mw_energy_window *w = mw_xcalloc(nwall ? nwall : 1, sizeof *w);
    size_t n = 0;
    for (size_t i = 0; i < nwall; i++)
        if (nsrc && wall[i].t0_ns - m >= lo && wall[i].t1_ns + m <= hi) w[n++] = wall[i];
    problem p = {w, n, src, nsrc, mw_xcalloc(n ? n : 1, sizeof(double))};
    int rc = -1;
    double r;
    if (n < MIN_WINDOWS) {
        snprintf(note, notelen, "%zu wall windows inside the in-band data +- %.1f s (at least %d needed)",
                 n, max_offset_s, MIN_WINDOWS);
    } else {
        int64_t lim = llround(max_offset_s * 1e9);
        int64_t c = scan(&p, -lim, lim, COARSE_NS, &r);
        int64_t f = scan(&p, c - COARSE_NS, c + COARSE_NS, FINE_NS, &r);
        if (r <= 0) {
            snprintf(note, notelen, "no positive correlation of the wall with the in-band power");
        } else if (f <= -lim || f >= lim) {
            snprintf(note, notelen, "the best offset lies at the edge of +-%.1f s", max_offset_s);
        } else {
            double rm = r_at(&p, f - FINE_NS), rp = r_at(&p, f + FINE_NS);
            double den = rm - 2 * r + rp, frac = den < 0 ? 0.5 * (rm - rp) / den : 0;
            if (frac > 0.5) frac = 0.5;
            if (frac < -0.5) frac = -0.5;
            out->offset_s = ((double)f + frac * FINE_NS) * 1e-9;
            out->correlation = r;
            out->windows = n;
            fit_at(&p, out->offset_s, out);
            rc = 0;
        }
    }
    free(p.x);
    free(w);
    return rc;
}
